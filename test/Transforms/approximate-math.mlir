// RUN: tcl-opt %s --tcl-approximate-math | FileCheck %s

// erf, tanh and exp become arithmetic (no libm call later: LLVM lowers a
// vector exp to one expf call per lane on x86); sin stays (MLIR's
// approximation reduces its argument in f32, less accurate far from zero).
// CHECK-LABEL: func.func @gelu_parts
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK-NOT: math.exp
// CHECK: math.sin
// CHECK-NOT: math.exp
func.func @gelu_parts(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32, vector<16xf32>, f32, vector<16xf32>) {
  %e = math.erf %x : vector<16xf32>
  %t = math.tanh %y : f32
  %x2 = math.exp %x : vector<16xf32>
  %x3 = math.exp %y : f32
  %s = math.sin %x : vector<16xf32>
  return %e, %t, %x2, %x3, %s : vector<16xf32>, f32, vector<16xf32>, f32, vector<16xf32>
}
