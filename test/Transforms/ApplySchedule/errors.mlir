// Schedules that do not fit their payload are rejected with a clear error.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule -verify-diagnostics

// expected-error @below {{finds no operation tagged tcl.task = "missing"}}
tcl.sched.schedule task "missing" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
}

// -----

func.func @mm(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-note @below {{task instance here}}
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
// expected-error @below {{declares loops [16, 8, 8] 'ppr' but the anchor has [8, 8, 8] 'ppr'}}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 8 parallel, 8 reduction] {
}

// -----

func.func @bmm(%a: tensor<2x8x8xf32>, %c: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  // expected-note @below {{task instance here}}
  %0 = linalg.batch_matmul {tcl.task = "mm"} ins(%a, %a : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%c : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %0 : tensor<2x8x8xf32>
}
// expected-error @below {{expects anchor linalg.matmul but task 'mm' is anchored on linalg.batch_matmul}}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
}

// -----

func.func @mm(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.tile' op fuses the epilogue of task 'mm', which has none (tag its ops tcl.epilogue = "mm")}}
  tcl.sched.tile [4, 4, 0]
  tcl.sched.fuse_epilogue
}

// -----

func.func @mm(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.pad' op operand 3 is out of range: linalg.matmul has 3 operands}}
  tcl.sched.pad [3]
}

// -----

// The verifier does not know a linalg.generic's operands: the lowering
// refuses to hoist the padding of its output (operand 1 here), on which
// MLIR's hoist_pad would crash.
func.func @scale(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.generic {tcl.task = "scale", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%y : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
tcl.sched.schedule task "scale" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, 64 parallel] {
  tcl.sched.tile [16, 16]
  // expected-error @below {{'tcl.sched.pad' op hoisting the padding of output operand 1 is not supported}}
  tcl.sched.pad [1] hoist 1
}
