// RUN: tcl-opt %s --tcl-approximate-math | FileCheck %s

// erf and tanh become arithmetic (no libm call later); exp stays for LLVM's
// intrinsic.
// CHECK-LABEL: func.func @gelu_parts
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: math.exp
func.func @gelu_parts(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32, vector<16xf32>) {
  %e = math.erf %x : vector<16xf32>
  %t = math.tanh %y : f32
  %x2 = math.exp %x : vector<16xf32>
  return %e, %t, %x2 : vector<16xf32>, f32, vector<16xf32>
}
