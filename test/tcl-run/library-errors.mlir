// tcl-run refuses a library that is not a complete shared library (a
// truncated copy would die of SIGBUS in dlopen) and one compiled from another
// function under the same entry name (its code would read and write past the
// buffers), naming both signatures.
// RUN: tcl-compile %s -o %t.so
// RUN: tcl-run %s --entry=scale --library=%t.so | FileCheck %s --check-prefix=OK
// RUN: head -c 3000 %t.so > %t.truncated.so
// RUN: not tcl-run %s --entry=scale --library=%t.truncated.so 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: head -c 10 %t.so > %t.tiny.so
// RUN: not tcl-run %s --entry=scale --library=%t.tiny.so 2>&1 | FileCheck %s --check-prefix=TINY
// RUN: sed 's/16x32/8x32/g' %s > %t.other.mlir
// RUN: not tcl-run %t.other.mlir --entry=scale --library=%t.so 2>&1 | FileCheck %s --check-prefix=OTHER

// OK: kernel @scale (shared library {{.*}}.so)
// OK-NEXT: check: max relative error {{.*}} against plain loops: ok
// TRUNCATED: tcl-run: '{{.*}}.truncated.so' is not a complete shared library: program header {{[0-9]+}} spans bytes
// TINY: tcl-run: '{{.*}}.tiny.so' is not a complete shared library:
// OTHER: tcl-run: '{{.*}}.so' was compiled for a different function: @scale there has the signature f32[16x32]->f32[16x32], but the caller expects f32[8x32]->f32[8x32]

func.func @scale(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %two = arith.constant 2.0 : f32
  %empty = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%empty : tensor<16x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
