// RUN: tcl-opt %s --tcl-lower-vector | FileCheck %s

// One row reduced at once (its other dims of extent 1: a softmax's or a
// normalization's row vectorized along the row) is a vector.reduction of the
// flattened row, which LLVM lowers to a tree; not 64 extracts combined one
// by one.
// CHECK-LABEL: func.func @row
// CHECK-SAME: (%[[ROW:.*]]: vector<1x1x64xf32>, %[[ACC:.*]]: vector<1x1xf32>
// CHECK: %[[FLAT:.*]] = vector.extract %[[ROW]][0, 0] : vector<64xf32> from vector<1x1x64xf32>
// CHECK: %[[A:.*]] = vector.extract %[[ACC]][0, 0] : f32 from vector<1x1xf32>
// CHECK: %[[MAX:.*]] = vector.reduction <maximumf>, %[[FLAT]], %[[A]] : vector<64xf32> into f32
// CHECK: vector.splat %[[MAX]] : vector<1x1xf32>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<256xf32> into f32
// CHECK-NOT: vector.extract %{{.*}}[63]
// CHECK: return
func.func @row(%row: vector<1x1x64xf32>, %acc: vector<1x1xf32>, %wide: vector<256xf32>, %s: f32) -> (vector<1x1xf32>, f32) {
  %max = vector.multi_reduction <maximumf>, %row, %acc [2] : vector<1x1x64xf32> to vector<1x1xf32>
  %sum = vector.multi_reduction <add>, %wide, %s [0] : vector<256xf32> to f32
  return %max, %sum : vector<1x1xf32>, f32
}

// Several rows at once keep the InnerParallel lowering: elementwise ops
// across the rows' lanes.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: vector.reduction
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @rows(%rows: vector<8x4xf32>, %acc: vector<8xf32>) -> vector<8xf32> {
  %max = vector.multi_reduction <maximumf>, %rows, %acc [1] : vector<8x4xf32> to vector<8xf32>
  return %max : vector<8xf32>
}
