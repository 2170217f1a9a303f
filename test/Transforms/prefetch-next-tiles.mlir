// tcl-prefetch-next-tiles: a register tile whose accumulators are carried
// through its reduction loop prefetches, before that loop, each cache line
// of the tile the enclosing loop reads next (the same tile in its last
// iteration).
// RUN: tcl-opt %s --tcl-prefetch-next-tiles --canonicalize | FileCheck %s

// The tile is 4 rows of 32 floats, two lines a row: eight prefetches of the
// next tile along n (columns + 32, or the same columns at the last one).
// CHECK-LABEL: func.func @register_tile
//       CHECK:   scf.for %[[N:.*]] = %c0 to %c128 step %c32
//       CHECK:     %[[TILE:.*]] = memref.subview %{{.*}}[0, %[[N]]] [4, 32] [1, 1]
//       CHECK:     %[[ACC:.*]] = vector.transfer_read %[[TILE]]
//       CHECK:     %[[NEXT:.*]] = arith.addi %[[N]], %c32
//       CHECK:     %[[INSIDE:.*]] = arith.cmpi slt, %[[NEXT]], %c128
//       CHECK:     %[[IV:.*]] = arith.select %[[INSIDE]], %[[NEXT]], %[[N]]
//       CHECK:     %[[NEXT_TILE:.*]] = memref.subview %{{.*}}[0, %[[IV]]] [4, 32] [1, 1]
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c0, %c0], write, locality<3>, data
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c0, %c16], write, locality<3>, data
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c1, %c0], write, locality<3>, data
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c1, %c16], write, locality<3>, data
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c2, %c0]
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c2, %c16]
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c3, %c0]
//       CHECK:     memref.prefetch %[[NEXT_TILE]][%c3, %c16]
//   CHECK-NOT:     memref.prefetch
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]])
//       CHECK:     vector.transfer_write {{.*}}, %[[TILE]]
func.func @register_tile(%a: memref<4x64xf32>, %b: memref<64x128xf32>, %c: memref<4x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.for %n = %c0 to %c128 step %c32 {
    %tile = memref.subview %c[0, %n] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
    %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, true]} : memref<4x32xf32, strided<[128, 1], offset: ?>>, vector<4x32xf32>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%partial = %acc) -> (vector<4x32xf32>) {
      %row = vector.transfer_read %b[%k, %n], %zero {in_bounds = [true]} : memref<64x128xf32>, vector<32xf32>
      %broadcast = vector.broadcast %row : vector<32xf32> to vector<4x32xf32>
      %next = arith.addf %partial, %broadcast : vector<4x32xf32>
      scf.yield %next : vector<4x32xf32>
    }
    vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<4x32xf32>, memref<4x32xf32, strided<[128, 1], offset: ?>>
  }
  return
}

// The enclosing loop does not move the tile (its next iteration reads the
// same accumulators: a kernel row around the columns' reduction), the tile
// is not written back (not accumulators), or its reduction updates it fewer
// than 32 times (a depthwise convolution's 3x3 taps): nothing is
// prefetched.
// CHECK-LABEL: func.func @same_tile_or_not_accumulators
//   CHECK-NOT:   memref.prefetch
//       CHECK:   return
func.func @same_tile_or_not_accumulators(%b: memref<64x128xf32>, %c: memref<4x128xf32>, %d: memref<4x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.for %kh = %c0 to %c3 step %c1 {
    %tile = memref.subview %c[0, 0] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1]>>
    %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, true]} : memref<4x32xf32, strided<[128, 1]>>, vector<4x32xf32>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%partial = %acc) -> (vector<4x32xf32>) {
      %row = vector.transfer_read %b[%k, %kh], %zero {in_bounds = [true]} : memref<64x128xf32>, vector<32xf32>
      %broadcast = vector.broadcast %row : vector<32xf32> to vector<4x32xf32>
      %next = arith.addf %partial, %broadcast : vector<4x32xf32>
      scf.yield %next : vector<4x32xf32>
    }
    vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<4x32xf32>, memref<4x32xf32, strided<[128, 1]>>
  }
  scf.for %n = %c0 to %c128 step %c32 {
    %input = memref.subview %c[0, %n] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
    %output = memref.subview %d[0, %n] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
    %x = vector.transfer_read %input[%c0, %c0], %zero {in_bounds = [true, true]} : memref<4x32xf32, strided<[128, 1], offset: ?>>, vector<4x32xf32>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%partial = %x) -> (vector<4x32xf32>) {
      %next = arith.addf %partial, %partial : vector<4x32xf32>
      scf.yield %next : vector<4x32xf32>
    }
    vector.transfer_write %sum, %output[%c0, %c0] {in_bounds = [true, true]} : vector<4x32xf32>, memref<4x32xf32, strided<[128, 1], offset: ?>>
  }
  scf.for %n = %c0 to %c128 step %c32 {
    %tile = memref.subview %c[0, %n] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
    %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, true]} : memref<4x32xf32, strided<[128, 1], offset: ?>>, vector<4x32xf32>
    %sum = scf.for %kh = %c0 to %c3 step %c1 iter_args(%outer = %acc) -> (vector<4x32xf32>) {
      %inner = scf.for %kw = %c0 to %c3 step %c1 iter_args(%partial = %outer) -> (vector<4x32xf32>) {
        %row = vector.transfer_read %b[%kh, %kw], %zero {in_bounds = [true]} : memref<64x128xf32>, vector<32xf32>
        %broadcast = vector.broadcast %row : vector<32xf32> to vector<4x32xf32>
        %next = arith.addf %partial, %broadcast : vector<4x32xf32>
        scf.yield %next : vector<4x32xf32>
      }
      scf.yield %inner : vector<4x32xf32>
    }
    vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<4x32xf32>, memref<4x32xf32, strided<[128, 1], offset: ?>>
  }
  return
}

// A loop that packs a panel (of B: 128 rows of 128 floats) before its 32
// register tiles (8 row tiles x 4 column tiles): each tile also prefetches
// its share of the panel the loop's next iteration packs into L2, 4 rows
// from row 4t (t = n / 32 + 4 * (m / 8)), 8 lines a row, one line in each
// of the first 32 iterations of its reduction.
// CHECK-LABEL: func.func @packed_panel
//       CHECK:   scf.for %[[K:.*]] = %c0 to %c512 step %c128
//       CHECK:     linalg.copy
//       CHECK:     scf.for %[[M:.*]] = %c0 to %c64 step %c8
//       CHECK:       scf.for %[[N:.*]] = %c0 to %c128 step %c32
//       CHECK:         vector.transfer_read
//  CHECK-COUNT-16:     memref.prefetch {{.*}}, write, locality<3>, data
//   CHECK-DAG:         %[[COLUMN_TILE:.*]] = arith.divui %[[N]], %c32
//   CHECK-DAG:         %[[ROW_TILE:.*]] = arith.divui %[[M]], %c8
//       CHECK:         %[[ROW_TILES:.*]] = arith.muli %[[ROW_TILE]], %c4
//       CHECK:         %[[TILE:.*]] = arith.addi %[[COLUMN_TILE]], %[[ROW_TILES]]
//       CHECK:         %[[NEXT_K:.*]] = arith.addi %[[K]], %c128
//       CHECK:         %[[INSIDE:.*]] = arith.cmpi slt, %[[NEXT_K]], %c512
//       CHECK:         %[[K_IV:.*]] = arith.select %[[INSIDE]], %[[NEXT_K]], %[[K]]
//       CHECK:         %[[NEXT_PANEL:.*]] = memref.subview %{{.*}}[%[[K_IV]], 0] [128, 128] [1, 1]
//       CHECK:         %[[FIRST_ROW:.*]] = arith.muli %[[TILE]], %c4
//   CHECK-NOT:         memref.prefetch
//       CHECK:         scf.for %[[I:.*]] = %c0 to %c128 step %c1
//       CHECK:           %[[ROW_OF_LINE:.*]] = arith.divui %[[I]], %c8
//       CHECK:           %[[ROW:.*]] = arith.addi %[[FIRST_ROW]], %[[ROW_OF_LINE]]
//       CHECK:           %[[IN_SHARE:.*]] = arith.cmpi slt, %[[I]], %c32
//       CHECK:           %[[IN_PANEL:.*]] = arith.cmpi sle, %[[ROW]], %c127
//       CHECK:           %[[BOTH:.*]] = arith.andi %[[IN_SHARE]], %[[IN_PANEL]]
//       CHECK:           scf.if %[[BOTH]]
//       CHECK:             %[[LINE:.*]] = arith.remui %[[I]], %c8
//       CHECK:             %[[COLUMN:.*]] = arith.muli %[[LINE]], %c16
//       CHECK:             memref.prefetch %[[NEXT_PANEL]][%[[ROW]], %[[COLUMN]]], read, locality<2>, data
//   CHECK-NOT:         memref.prefetch
//       CHECK:         vector.transfer_write
func.func @packed_panel(%a: memref<64x512xf32>, %b: memref<512x128xf32>, %c: memref<64x128xf32>, %packed: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c512 step %c128 {
    %panel = memref.subview %b[%k, 0] [128, 128] [1, 1] : memref<512x128xf32> to memref<128x128xf32, strided<[128, 1], offset: ?>>
    linalg.copy ins(%panel : memref<128x128xf32, strided<[128, 1], offset: ?>>) outs(%packed : memref<128x128xf32>)
    scf.for %m = %c0 to %c64 step %c8 {
      scf.for %n = %c0 to %c128 step %c32 {
        %tile = memref.subview %c[%m, %n] [8, 32] [1, 1] : memref<64x128xf32> to memref<8x32xf32, strided<[128, 1], offset: ?>>
        %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, true]} : memref<8x32xf32, strided<[128, 1], offset: ?>>, vector<8x32xf32>
        %sum = scf.for %kk = %c0 to %c128 step %c1 iter_args(%partial = %acc) -> (vector<8x32xf32>) {
          %row = vector.transfer_read %packed[%kk, %n], %zero {in_bounds = [true]} : memref<128x128xf32>, vector<32xf32>
          %broadcast = vector.broadcast %row : vector<32xf32> to vector<8x32xf32>
          %next = arith.addf %partial, %broadcast : vector<8x32xf32>
          scf.yield %next : vector<8x32xf32>
        }
        vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32, strided<[128, 1], offset: ?>>
      }
    }
  }
  return
}
