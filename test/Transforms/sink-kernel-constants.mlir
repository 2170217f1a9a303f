// RUN: tcl-opt %s --pass-pipeline="builtin.module(func.func(tcl-sink-kernel-constants))" | FileCheck %s

// A kernel with vector code (a register tile) gets the constants it uses
// inside it, where LLVM sees its strides and offsets; a scalar kernel keeps
// them outside (as kernel arguments after outlining, its reduction loops
// are not fully unrolled into spills).
// CHECK-LABEL: func.func @kernels
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: gpu.launch
// CHECK-NEXT: arith.constant 2048 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.addi
// CHECK-NEXT: vector.load
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %{{.*}}[%[[EIGHT]]]
func.func @kernels(%buffer: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %index = arith.addi %c2048, %c0 : index
    %row = vector.load %buffer[%index] : memref<4096xf32>, vector<4xf32>
    vector.store %row, %buffer[%c0] : memref<4096xf32>, vector<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %value = memref.load %buffer[%c8] : memref<4096xf32>
    memref.store %value, %buffer[%c1] : memref<4096xf32>
    gpu.terminator
  }
  return
}
