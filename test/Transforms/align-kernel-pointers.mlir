// RUN: tcl-opt %s --pass-pipeline="builtin.module(gpu.module(tcl-align-kernel-pointers))" | FileCheck %s

// A kernel's pointer arguments (the memref descriptors' allocated and
// aligned pointers of device allocations) are marked 256-byte aligned, so
// that LLVM can merge a thread's neighbouring loads into 128-bit ones; its
// other arguments and functions that are not kernels stay as they are.
// Shared memory (address space 3) is aligned for 128-bit loads; other
// globals stay as they are.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global internal @shared() {addr_space = 3 : i32, alignment = 16 : i64}
// CHECK: llvm.mlir.global internal @other() {addr_space = 0 : i32} : f32
// CHECK: llvm.func @tile_kernel(%{{.*}}: !llvm.ptr {llvm.align = 256 : i64}, %{{.*}}: !llvm.ptr {llvm.align = 256 : i64}, %{{.*}}: i64)
// CHECK: llvm.func @helper(%{{.*}}: !llvm.ptr)
gpu.module @kernels {
  llvm.mlir.global internal @shared() {addr_space = 3 : i32} : !llvm.array<64 x f32>
  llvm.mlir.global internal @other() {addr_space = 0 : i32} : f32
  llvm.func @tile_kernel(%allocated: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64) attributes {nvvm.kernel} {
    llvm.return
  }
  llvm.func @helper(%pointer: !llvm.ptr) {
    llvm.return
  }
}
