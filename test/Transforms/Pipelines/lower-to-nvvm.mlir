// tcl-lower-to-nvvm takes scheduled linalg on tensors to kernels in one PTX
// module (a gpu.binary) and host code that launches them: each task's block
// and thread loops become one kernel, and ops no schedule maps (glue such as
// a transpose) get kernels of their own.
// RUN: tcl-opt %s --tcl-lower-to-nvvm | FileCheck %s
// RUN: tcl-opt %s "--tcl-lower-to-nvvm=target=nvptx-sm80" | FileCheck %s --check-prefix=SM80
// RUN: not tcl-opt %s "--tcl-lower-to-nvvm=target=x86-avx512" 2>&1 | FileCheck %s --check-prefix=CPU

// The host code, in one stream: the caller's buffers copied to the device,
// a device buffer for the matmul's result, one launch per kernel (all in
// the merged module), the result copied back, everything freed.
// CHECK-LABEL: llvm.func @mm_t(
//       CHECK:   %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK-COUNT-3:   llvm.call @mgpuMemcpy({{.*}}, %[[STREAM]])
//       CHECK:   llvm.call @mgpuMemAlloc
//       CHECK:   gpu.launch_func <%[[STREAM]] : !llvm.ptr> @tcl_kernels::@mm_t_kernel blocks in
//       CHECK:   gpu.launch_func <%[[STREAM]] : !llvm.ptr> @tcl_kernels::@mm_t_kernel_0 blocks in
//   CHECK-NOT:   gpu.launch_func
//       CHECK:   llvm.call @mgpuMemcpy
//       CHECK:   llvm.call @mgpuStreamSynchronize(%[[STREAM]])
//       CHECK:   llvm.return
// The kernels' PTX, for sm_90: the matmul's multiply-adds as FMAs, the
// transpose's kernel.
//       CHECK: gpu.binary @tcl_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
//  CHECK-SAME:   .target sm_90
//  CHECK-SAME:   .entry mm_t_kernel(
//  CHECK-SAME:   fma.rn.f32
//  CHECK-SAME:   .entry mm_t_kernel_0(
//   CHECK-NOT: gpu.binary

// SM80: chip = "sm_80"
// SM80-SAME: .target sm_80

// CPU: tcl-lower-to-nvvm: 'x86-avx512' is not a GPU target (known: nvptx-sm90, nvptx-sm80)

func.func @mm_t(%a: tensor<128x256xf32>, %b: tensor<256x64xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<128x256xf32>, tensor<256x64xf32>) outs(%f : tensor<128x64xf32>) -> tensor<128x64xf32>
  %te = tensor.empty() : tensor<64x128xf32>
  %t = linalg.transpose ins(%m : tensor<128x64xf32>) outs(%te : tensor<64x128xf32>) permutation = [1, 0]
  return %t : tensor<64x128xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 64 parallel, 256 reduction] {
  tcl.sched.tile [32, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [2, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
}
