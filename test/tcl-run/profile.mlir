// tcl-run --profile prints where the timed runs' time went: the tasks'
// nests, the other nests (here the pad's copy into a bigger buffer) and the
// function's own code, with a row per nest. With --library, the library
// must have been compiled with tcl-compile --profile; one without counters
// is refused with what to do. GPU code is not profiled.
// RUN: tcl-run %s --entry=pad_conv --profile --repeats=2 | FileCheck %s
// RUN: tcl-compile %s --entry=pad_conv --profile -o %t.so
// RUN: tcl-run %s --entry=pad_conv --library=%t.so --profile --repeats=2 | FileCheck %s
// RUN: tcl-compile %s --entry=pad_conv -o %t.plain.so
// RUN: not tcl-run %s --entry=pad_conv --library=%t.plain.so --profile 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not tcl-run %s --entry=pad_conv --target=nvptx-sm90 --profile 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not tcl-compile %s --entry=pad_conv --target=nvptx-sm90 --emit=ptx --profile 2>&1 | FileCheck %s --check-prefix=GPU-COMPILE

// CHECK: check: max relative error {{.*}}: ok
// CHECK: profile of @pad_conv over {{[0-9]+}} runs (time stamp counter; milliseconds are shares of the measured {{[0-9.]+}} ms):
// CHECK-NEXT: tasks' nests {{ *[0-9.]+}} %
// CHECK-NEXT: other nests {{ *[0-9.]+}} %
// CHECK-NEXT: outside nests {{ *[0-9.]+}} %
// CHECK-NEXT: | nest | task | ops | calls a run | ms a run | share |
// CHECK-DAG: | pad_conv.conv{{.*}} | conv | scf.for | 1 | {{[0-9.]+}} | {{[0-9.]+}} % |
// CHECK-DAG: | pad_conv.{{.*}} | - | {{.*}}copy{{.*}} | 1 | {{[0-9.]+}} | {{[0-9.]+}} % |

// PLAIN: tcl-run: the code has no profile counters (no tcl_profile_sites): compile it with profiling (tcl-compile --profile), or let tcl-run --profile compile it
// GPU: tcl-run: --profile counts time on CPU targets only; nvptx-sm90 is a GPU
// GPU-COMPILE: --profile counts time on CPU targets only; nvptx-sm90 is a GPU

func.func @pad_conv(%x: tensor<1x16x16x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x8xf32> to tensor<1x18x18x8xf32>
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %c : tensor<1x16x16x16xf32>
}
