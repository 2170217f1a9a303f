// tcl-outline-loop-nests moves each top-level loop nest into a private
// function of its own, named after its task or ONNX node: LLVM then
// optimizes functions of one task's size, whatever the model's depth.
// RUN: tcl-opt %s --tcl-outline-loop-nests | FileCheck %s

// The first nest's function: it takes the buffers and the weights it reads;
// the loop bounds are cloned in as constants.
// CHECK-LABEL: func.func private @model.block_Add(
//  CHECK-SAME:     %[[IN:[a-z0-9]+]]: memref<16xf32>, %[[W:[a-z0-9]+]]: memref<16xf32>, %[[OUT:[a-z0-9]+]]: memref<16xf32>)
//  CHECK-SAME:     attributes {llvm.linkage = #llvm.linkage<internal>, no_inline}
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
//       CHECK:   scf.for %{{.*}} = %[[C0]] to %[[C16]]
//       CHECK:     memref.load %[[IN]]
//       CHECK:     memref.load %[[W]]
//       CHECK:     memref.store %{{.*}}, %[[OUT]]
//       CHECK:   return

// A view the nest writes through is cloned into the function, which takes
// the whole buffer; the name is the task's.
// CHECK-LABEL: func.func private @model.zero_half(
//  CHECK-SAME:     %[[BUF:[a-z0-9]+]]: memref<16xf32>)
//       CHECK:   memref.subview %[[BUF]][8] [8] [1]
//       CHECK:   linalg.fill

// The caller: the second nest differs from the first only in its buffers
// and weights, so it calls the same function. The rank-0 computation and
// the loop-free scf.if stay.
// CHECK-LABEL: func.func @model(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: memref<16xf32>, %[[Y:[a-z0-9]+]]: memref<16xf32>
//   CHECK-DAG:   %[[W0:.*]] = memref.get_global @w0
//   CHECK-DAG:   %[[W1:.*]] = memref.get_global @w1
//   CHECK-DAG:   %[[TMP:.*]] = memref.alloc()
//       CHECK:   call @model.block_Add(%[[X]], %[[W0]], %[[TMP]])
//       CHECK:   call @model.block_Add(%[[TMP]], %[[W1]], %[[Y]])
//       CHECK:   call @model.zero_half(%[[Y]])
//   CHECK-NOT:   scf.for
//       CHECK:   linalg.generic
//       CHECK:   scf.if
//   CHECK-NOT:   scf.for
//       CHECK:   return
//   CHECK-NOT: func.func

// (Pipelines/lower-to-llvm.mlir and tcl-compile/driver.mlir check the
// functions after lowering: internal, not inlined.)

memref.global "private" constant @w0 : memref<16xf32> = dense<1.0>
memref.global "private" constant @w1 : memref<16xf32> = dense<2.0>

func.func @model(%x: memref<16xf32>, %y: memref<16xf32>, %s: memref<f32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %w0 = memref.get_global @w0 : memref<16xf32>
  %w1 = memref.get_global @w1 : memref<16xf32>
  %tmp = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %x[%i] : memref<16xf32>
    %b = memref.load %w0[%i] : memref<16xf32>
    %sum = arith.addf %a, %b : f32
    memref.store %sum, %tmp[%i] : memref<16xf32>
  } loc("/block/Add")
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %tmp[%i] : memref<16xf32>
    %b = memref.load %w1[%i] : memref<16xf32>
    %sum = arith.addf %a, %b : f32
    memref.store %sum, %y[%i] : memref<16xf32>
  } loc("/block/Add_1")
  %half = memref.subview %y[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  linalg.fill {tcl.task = "zero_half"} ins(%zero : f32) outs(%half : memref<8xf32, strided<[1], offset: 8>>)
  linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%s : memref<f32>) {
  ^bb0(%out: f32):
    %m = arith.maximumf %out, %zero : f32
    linalg.yield %m : f32
  }
  scf.if %flag {
    memref.store %zero, %s[] : memref<f32>
  }
  memref.dealloc %tmp : memref<16xf32>
  return
}
