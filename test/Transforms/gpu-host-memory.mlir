// tcl-gpu-host-memory gives the kernels device buffers: a public function's
// memref arguments are copied to the device on entry (and back at return
// where a kernel writes them), the constants it reads are copied too, the
// host's temporaries become device allocations, and every copy is freed.
// RUN: tcl-opt %s -split-input-file --tcl-gpu-host-memory -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @scale(
//  CHECK-SAME:   %[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>)
//       CHECK:   %[[DIN:.*]] = gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.memcpy %[[DIN]], %[[IN]]
//       CHECK:   %[[DOUT:.*]] = gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.memcpy %[[DOUT]], %[[OUT]]
//       CHECK:   %[[W:.*]] = memref.get_global @weights
//       CHECK:   %[[DW:.*]] = gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.memcpy %[[DW]], %[[W]]
//       CHECK:   %[[TMP:.*]] = gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[DIN]]
//       CHECK:     memref.load %[[DW]]
//       CHECK:     memref.store {{.*}}, %[[TMP]]
//       CHECK:   gpu.launch
//       CHECK:     memref.store {{.*}}, %[[DOUT]]
//       CHECK:   gpu.dealloc %[[TMP]]
// Only the output goes back to the caller.
//   CHECK-NOT:   gpu.memcpy %[[IN]]
//       CHECK:   gpu.dealloc %[[DIN]]
//       CHECK:   gpu.memcpy %[[OUT]], %[[DOUT]]
//       CHECK:   gpu.dealloc %[[DOUT]]
//       CHECK:   gpu.dealloc %[[DW]]
//       CHECK:   return
memref.global "private" constant @weights : memref<64xf32> = dense<2.0>
func.func @scale(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = memref.get_global @weights : memref<64xf32>
  %tmp = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c64, %s1 = %c1, %s2 = %c1) {
    %x = memref.load %in[%t0] : memref<64xf32>
    %y = memref.load %w[%t0] : memref<64xf32>
    %p = arith.mulf %x, %y : f32
    memref.store %p, %tmp[%t0] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c64, %s1 = %c1, %s2 = %c1) {
    %x = memref.load %tmp[%t0] : memref<64xf32>
    memref.store %x, %out[%t0] : memref<64xf32>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<64xf32>
  return
}

// -----

func.func @host_reads_device_memory(%in: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' would access device memory on the host: it is in no GPU kernel}}
  %x = memref.load %in[%c0] : memref<64xf32>
  return %x : f32
}
