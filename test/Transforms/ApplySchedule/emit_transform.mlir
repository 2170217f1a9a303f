// With emit-transform, each schedule is replaced by the transform sequence it
// lowers to: one upstream transform op (or a few) per primitive.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule=emit-transform | FileCheck %s

// CHECK: module attributes {transform.with_named_sequence}
// CHECK: transform.named_sequence @__tcl_mm_0(%[[ROOT:.*]]: !transform.any_op {transform.readonly})
// CHECK:   %[[A:.*]] = transform.structured.match attributes {__tcl_sched_match = 0 : i64} in %[[ROOT]]
// CHECK:   %[[T0:.*]], %[[F:.*]] = transform.structured.tile_using_forall %[[A]] tile_sizes [64, 128, 0]
// The first tile level's loop is the instance's nest: clean-ups work there.
// CHECK:   transform.annotate %[[F]] "__tcl_sched_nest"
// CHECK:   %[[T1:.*]], %[[L1:.*]]:3 = transform.structured.tile_using_for %[[T0]] tile_sizes [8, 32, 1] interchange = [0, 1, 2]
// CHECK:   %[[P:.*]], %{{.*}}, %{{.*}} = transform.structured.pad %[[T1]] pad_to_multiple_of [] {copy_back_op = "linalg.copy", pack_paddings = [1, 1, 0], padding_dimensions = [0, 1, 2], padding_values = [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32]}
// CHECK:   %[[PA:.*]] = transform.get_producer_of_operand %[[P]][0]
// CHECK:   transform.structured.hoist_pad %[[PA]] by 1 loops
// CHECK:   %[[PB:.*]] = transform.get_producer_of_operand %[[P]][1]
// CHECK:   transform.structured.hoist_pad %[[PB]] by 1 loops
// CHECK:   %[[PV:.*]] = transform.tcl.split_vector_remainders %[[P]]
// CHECK:   transform.structured.vectorize %[[PV]]
// CHECK:   transform.apply_licm to %[[L1]]#2
// CHECK:   transform.apply_cse to %[[ROOT]]
// CHECK:   transform.loop.hoist_loop_invariant_subsets %[[L1]]#2
// CHECK:   transform.loop.hoist_loop_invariant_subsets %[[L1]]#2
// CHECK:   transform.loop.unroll %[[L1]]#2 {factor = 4 : i64}
// CHECK:   %[[NEST:.*]] = transform.structured.match attributes {__tcl_sched_nest} in %[[ROOT]]
// CHECK:   transform.apply_patterns to %[[NEST]] {
// CHECK-NEXT:     transform.apply_patterns.canonicalization
// CHECK-NEXT:   } : !transform.any_op
// CHECK-NEXT:   transform.tcl.forward_filled_reads %[[NEST]]
// CHECK-NEXT:   transform.tcl.skip_zero_border_products %[[NEST]]
// CHECK-NEXT:   transform.apply_patterns to %[[NEST]] {
// CHECK-NEXT:     transform.apply_patterns.canonicalization
// CHECK:   transform.apply_cse to %[[NEST]]
// CHECK:   transform.yield
// CHECK-NOT: tcl.sched
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
  tcl.sched.pad [0, 1] hoist 1
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}

// -----

// A sequential level whose tiles do not divide (100 rows by 8) tags its
// loops and the anchor, peels the loops (tcl.peel_partial_loops) and finds
// them, now with their copies in the remainder, again by those tags.
// CHECK-LABEL: transform.named_sequence @__tcl_partial_0
// CHECK:   %[[T:.*]], %[[L:.*]]:3 = transform.structured.tile_using_for %{{.*}} tile_sizes [8, 32, 1]
// CHECK:   transform.annotate %[[L]]#0 "__tcl_sched_loop_0_0"
// CHECK:   transform.annotate %[[L]]#2 "__tcl_sched_loop_0_2"
// CHECK:   transform.annotate %[[T]] "__tcl_sched_anchor"
// CHECK:   %[[ALL:.*]] = transform.merge_handles %[[L]]#0, %[[L]]#1, %[[L]]#2
// CHECK:   transform.tcl.peel_partial_loops %[[ALL]]
// CHECK:   %[[K:.*]] = transform.structured.match attributes {__tcl_sched_loop_0_2}
// CHECK:   %[[A:.*]] = transform.structured.match attributes {__tcl_sched_anchor}
// CHECK:   %[[AV:.*]] = transform.tcl.split_vector_remainders %[[A]]
// CHECK:   transform.structured.vectorize %[[AV]]
// CHECK:   transform.loop.hoist_loop_invariant_subsets %[[K]]
func.func @partial(%a: tensor<100x64xf32>, %b: tensor<64x32xf32>, %c: tensor<100x32xf32>) -> tensor<100x32xf32> {
  %0 = linalg.matmul {tcl.task = "partial"} ins(%a, %b : tensor<100x64xf32>, tensor<64x32xf32>) outs(%c : tensor<100x32xf32>) -> tensor<100x32xf32>
  return %0 : tensor<100x32xf32>
}
tcl.sched.schedule task "partial" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
