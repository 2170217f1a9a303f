// Invalid schedules are rejected with a diagnostic naming the primitive and
// the reason; tcl-opt never crashes on them.
// RUN: tcl-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{targets unknown platform 'x86-avx1024'}}
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx1024"
    loops [8 parallel, 8 parallel, 8 reduction] {
}

// -----

// expected-error @below {{anchor 'linalg.transpose' is not an operation tcl can schedule}}
tcl.sched.schedule task "t" anchor "linalg.transpose" target "x86-avx512"
    loops [8 parallel, 8 parallel] {
}

// -----

// expected-error @below {{declares loop kinds 'ppp' but linalg.matmul has 'ppr'}}
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 parallel] {
}

// -----

// expected-error @below {{loop d1 has non-positive extent 0}}
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 0 parallel, 8 reduction] {
}

// -----

// expected-error @+2 {{expected 'parallel' or 'reduction', got 'serial'}}
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 serial, 8 reduction] {
}

// -----

// expected-error @below {{needs a non-empty task name}}
tcl.sched.schedule task "" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.tile' op expects 3 tile sizes (one per loop of the current domain), got 2}}
  tcl.sched.tile [4, 4]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.tile' op tile size -4 for loop d1 is negative}}
  tcl.sched.tile [4, -4, 0]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [64, 0, 0]
  // expected-error @below {{'tcl.sched.tile' op tile size 128 for loop d0 exceeds its extent 64}}
  tcl.sched.tile [128, 0, 0]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.tile' op tiles no loop: all sizes are 0}}
  tcl.sched.tile [0, 0, 0]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.interchange' op expects a permutation of the 3 loop dimensions, got [0, 0, 1]}}
  tcl.sched.interchange [0, 0, 1]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.interchange' op expects a permutation of the 3 loop dimensions, got [0, 1, 3]}}
  tcl.sched.interchange [0, 1, 3]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.interchange' op must follow a tcl.sched.tile whose loops it configures}}
  tcl.sched.interchange [1, 0, 2]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize
  // expected-error @below {{'tcl.sched.interchange' op cannot order the loops of a parallelized tile level}}
  tcl.sched.interchange [1, 0, 2]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.parallelize' op tile level 0 tiles reduction loop d2; parallel iterations would race on the output}}
  tcl.sched.parallelize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize
  tcl.sched.tile [2, 2, 0]
  // expected-error @below {{'tcl.sched.parallelize' op a schedule parallelizes at most one tile level}}
  tcl.sched.parallelize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.parallelize' op must follow a tcl.sched.tile whose loops it configures}}
  tcl.sched.parallelize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.fuse_epilogue' op tile level 0 tiles reduction loop d2; the epilogue has only the parallel loops}}
  tcl.sched.fuse_epilogue
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.tile [2, 2, 0]
  // expected-error @below {{'tcl.sched.fuse_epilogue' op must attach to the first tile level}}
  tcl.sched.fuse_epilogue
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.split_reduction by 2
  tcl.sched.tile [4, 4, 0, 0]
  // expected-error @below {{'tcl.sched.fuse_epilogue' op cannot fuse the epilogue after split_reduction}}
  tcl.sched.fuse_epilogue
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  // expected-error @below {{'tcl.sched.decompose' op applies to 2-D convolutions and poolings, not linalg.matmul}}
  tcl.sched.decompose
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 2, 8, 32, 1, 0, 0]
  // expected-error @below {{'tcl.sched.decompose' op needs loops d1 and d4 (or d2 and d5) tiled to 1; the current extents are [1, 2, 8, 32, 1, 3, 64]}}
  tcl.sched.decompose
}

// -----

// A grouped convolution decomposes only within one group.
tcl.sched.schedule task "t" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 8 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [1, 1, 8, 2, 8, 1, 1, 1]
  // expected-error @below {{'tcl.sched.decompose' op needs the group loop d3 tiled to 1; the current extents are [1, 1, 8, 2, 8, 1, 1, 1]}}
  tcl.sched.decompose
}

// -----

// ... and then is a 1-D convolution without the group loop.
tcl.sched.schedule task "t" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 8 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [1, 1, 8, 1, 8, 1, 1, 1]
  tcl.sched.decompose
  // expected-error @below {{'tcl.sched.tile' op expects 5 tile sizes (one per loop of the current domain), got 8}}
  tcl.sched.tile [1, 1, 8, 1, 8, 1, 1, 1]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.pooling_nhwc_max" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 0]
  tcl.sched.decompose
  // expected-error @below {{'tcl.sched.decompose' op linalg.pooling_nwc_max is already decomposed}}
  tcl.sched.decompose
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 1, 8]
  // expected-error @below {{'tcl.sched.vectorize' op linalg.conv_2d_nhwc_hwcf has a 2-D window that MLIR does not vectorize; tile the output and kernel height (or width) to 1 and decompose first}}
  tcl.sched.vectorize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [0, 0, 0, 48, 0, 0, 0]
  tcl.sched.parallelize
  tcl.sched.tile [1, 1, 8, 16, 1, 1, 8]
  tcl.sched.decompose
  // expected-error @below {{'tcl.sched.vectorize' op partial tiles of linalg.conv_1d_nwc_wcf cannot be vectorized: a parallel tile level (or a dynamic extent) leaves tiles whose size is known only at run time}}
  tcl.sched.vectorize
}

// -----

// Sequential tile levels that do not divide are peeled: the same tiles as
// above without the parallel level are valid.
tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [0, 0, 0, 48, 0, 0, 0]
  tcl.sched.tile [1, 1, 5, 16, 1, 1, 8]
  tcl.sched.decompose
  tcl.sched.vectorize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 100 reduction] {
  tcl.sched.tile [0, 0, 32]
  // expected-error @below {{'tcl.sched.split_reduction' op cannot split a reduction loop with partial tiles}}
  tcl.sched.split_reduction by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, ? reduction] {
  tcl.sched.tile [8, 0]
  // expected-error @below {{'tcl.sched.vectorize' op loop d1 (reduction) is untiled with a dynamic extent; tile it to a static size first}}
  tcl.sched.vectorize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [1024 parallel, 1024 parallel, 1024 reduction] {
  tcl.sched.tile [64, 64, 64]
  // expected-error @below {{'tcl.sched.vectorize' op the innermost tile has 262144 elements [64, 64, 64]; tile to at most 65536 first}}
  tcl.sched.vectorize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.tile' op must precede tcl.sched.vectorize: the loop nest is already vectorized}}
  tcl.sched.tile [4, 4, 4]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.vectorize' op must precede tcl.sched.vectorize}}
  tcl.sched.vectorize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  // expected-error @below {{'tcl.sched.split_reduction' op needs exactly one reduction loop; linalg.conv_2d_nhwc_hwcf has 3}}
  tcl.sched.split_reduction by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 12 reduction] {
  // expected-error @below {{'tcl.sched.split_reduction' op factor 8 must divide the reduction extent [12] and leave more than 1}}
  tcl.sched.split_reduction by 8
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 12 reduction] {
  // expected-error @below {{'tcl.sched.split_reduction' op factor 1 splits nothing}}
  tcl.sched.split_reduction by 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.split_reduction' op attribute 'factor' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  tcl.sched.split_reduction by 0
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'tcl.sched.pad' op pads the current tile's operands; tile first}}
  tcl.sched.pad [0]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.pad' op operand indices must be distinct and non-negative, got [1, 1]}}
  tcl.sched.pad [1, 1]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.pad' op hoist 4 exceeds the 3 loops of the innermost tile level (a copy cannot be hoisted out of an enclosing tile level)}}
  tcl.sched.pad [0, 1] hoist 4
}

// -----

// A level that loops over k alone: the copy hoisted out of it does not
// bufferize (a 1-trip loop over m does not count as a loop).
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 256 parallel, 1024 reduction] {
  tcl.sched.tile [64, 0, 512]
  // expected-error @below {{'tcl.sched.pad' op hoist 1: the innermost tile level loops over reductions only, and a copy hoisted out of such loops cannot be bufferized; tile a parallel dimension at this level too, or pad without hoist}}
  tcl.sched.pad [1] hoist 1
}

// -----

// Two levels: the copy may leave the inner level's 2 loops, not the outer
// level's k loop (MLIR's hoist_pad fails there).
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 16]
  tcl.sched.tile [8, 16, 0]
  // expected-error @below {{'tcl.sched.pad' op hoist 3 exceeds the 2 loops of the innermost tile level (a copy cannot be hoisted out of an enclosing tile level)}}
  tcl.sched.pad [0] hoist 3
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 0]
  tcl.sched.parallelize
  // expected-error @below {{'tcl.sched.pad' op hoist 1: the innermost tile level is a parallel scf.forall, out of which a copy cannot be hoisted; tile sequentially inside it first, or pad without hoist}}
  tcl.sched.pad [0] hoist 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  tcl.sched.pad [0]
  // expected-error @below {{'tcl.sched.pad' op operands are already padded}}
  tcl.sched.pad [1]
}

// -----

// MLIR's hoist_pad crashes (SIGSEGV) or fails on the copy of the output
// tile, which the loops update: hoisting an output's padding is refused.
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  // expected-error @below {{'tcl.sched.pad' op hoisting the padding of output operand 2 is not supported (the loops update the output tile, so its copy cannot move out of them); pad it without hoist, or hoist only input operands}}
  tcl.sched.pad [2] hoist 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  // expected-error @below {{'tcl.sched.pad' op hoisting the padding of output operand 2 is not supported}}
  tcl.sched.pad [0, 1, 2] hoist 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 16 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [1, 4, 4, 16, 0, 0, 0]
  // expected-error @below {{'tcl.sched.pad' op hoisting the padding of output operand 2 is not supported}}
  tcl.sched.pad [2] hoist 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  // expected-error @below {{'tcl.sched.pad' op operand 3 is out of range: linalg.matmul has 3 operands}}
  tcl.sched.pad [0, 3]
}

// -----

// Inputs may be hoisted, and the output padded where it is used.
tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  tcl.sched.pad [0, 1] hoist 3
}
tcl.sched.schedule task "u" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  tcl.sched.pad [0, 1, 2]
}
tcl.sched.schedule task "v" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  tcl.sched.pad [2] hoist 0
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  // expected-error @below {{'tcl.sched.unroll' op must follow tcl.sched.vectorize}}
  tcl.sched.unroll level 0 dim 2 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op level 1 does not exist; the schedule has 1 tile levels}}
  tcl.sched.unroll level 1 dim 2 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op loop d3 is out of range: tile level 0 has 3 loop dimensions}}
  tcl.sched.unroll level 0 dim 3 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op loop d2 is not tiled at tile level 0, so it has no loop}}
  tcl.sched.unroll level 0 dim 2 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op tile level 0 is a parallel scf.forall; unroll a sequential loop}}
  tcl.sched.unroll level 0 dim 0 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op factor 8 exceeds the trip count 4 of loop d2 at tile level 0}}
  tcl.sched.unroll level 0 dim 2 by 8
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  tcl.sched.vectorize
  tcl.sched.unroll level 0 dim 1 by 2
  // expected-error @below {{'tcl.sched.unroll' op must unroll inner loops first: loop d0 of tile level 0 encloses the already unrolled loop d1 of tile level 0}}
  tcl.sched.unroll level 0 dim 0 by 2
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.unroll' op attribute 'factor' failed to satisfy constraint}}
  tcl.sched.unroll level 0 dim 1 by 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  // expected-error @below {{'tcl.sched.hoist_accumulators' op must follow tcl.sched.vectorize}}
  tcl.sched.hoist_accumulators
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  tcl.sched.interchange [0, 2, 1]
  tcl.sched.vectorize
  // expected-error @below {{'tcl.sched.hoist_accumulators' op the innermost loop of tile level 0 runs over d1 (parallel); accumulators are loop-invariant only across a reduction loop}}
  tcl.sched.hoist_accumulators
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 2]
  tcl.sched.vectorize
  tcl.sched.unroll level 0 dim 2 by 2
  // expected-error @below {{'tcl.sched.hoist_accumulators' op must precede tcl.sched.unroll}}
  tcl.sched.hoist_accumulators
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  // expected-error @below {{'arith.constant' op is not a schedule primitive}}
  %zero = arith.constant 0 : index
}

// -----

// expected-error @below {{'tcl.sched.tile' op expects parent op 'tcl.sched.schedule'}}
tcl.sched.tile [4, 4, 4]
