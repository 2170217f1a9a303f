// GPU schedules map one tile level onto the grid's blocks and a later one
// onto a block's threads (tcl.sched.parallelize blocks|threads); the
// verifier rejects mappings a GPU cannot run, naming the primitive and why.
// RUN: tcl-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tcl.sched.schedule task "mm"
//       CHECK:   tcl.sched.tile [64, 64, 0]
//  CHECK-NEXT:   tcl.sched.parallelize blocks
//  CHECK-NEXT:   tcl.sched.fuse_epilogue
//  CHECK-NEXT:   tcl.sched.tile [4, 4, 0]
//  CHECK-NEXT:   tcl.sched.parallelize threads
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 8]
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.fuse_epilogue
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 8]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  // expected-error @below {{maps a level onto GPU threads without one mapped onto blocks before it}}
  tcl.sched.parallelize threads
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [32, 32, 0]
  // expected-error @below {{maps a level onto GPU blocks after another parallel level; 'blocks' comes first, once}}
  tcl.sched.parallelize blocks
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [1, 1, 0]
  // expected-error @below {{a schedule maps one tile level onto GPU threads}}
  tcl.sched.parallelize threads
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [128, 128, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [2, 2, 0]
  // expected-error @below {{maps 4096 threads onto one GPU block; at most 1024}}
  tcl.sched.parallelize threads
}

// -----

tcl.sched.schedule task "t" anchor "linalg.batch_matmul" target "nvptx-sm90"
    loops [4 parallel, 128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [1, 32, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [0, 4, 4, 0]
  tcl.sched.parallelize threads
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "nvptx-sm90"
    loops [2 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 0, 0, 0]
  // expected-error @below {{maps 4 loops onto GPU blocks; a grid and a block have 3 dimensions}}
  tcl.sched.parallelize blocks
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [100 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  // expected-error @below {{maps loop d0 onto GPU threads, but tiles of it above do not divide its extent: a partial tile's thread count would be known only at run time}}
  tcl.sched.parallelize threads
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 32]
  // expected-error @below {{tile level 0 tiles reduction loop d2; parallel iterations would race on the output}}
  tcl.sched.parallelize blocks
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  // expected-error @below {{needs a GPU mapping ('blocks' or 'threads'): the schedule maps loops onto a GPU already}}
  tcl.sched.parallelize
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 128 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  // expected-error @below {{unknown mapping 'warps' (expected 'blocks' or 'threads')}}
  tcl.sched.parallelize {mapping = "warps"}
}

// -----

// A GPU schedule unrolls its scalar loops without vectorize; nothing but
// other unrolls may follow.
// CHECK-LABEL: tcl.sched.schedule task "unrolled"
//       CHECK:   tcl.sched.unroll level 2 dim 2 by 4
tcl.sched.schedule task "unrolled" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [16, 12, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [16, 2, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 8]
  tcl.sched.unroll level 2 dim 2 by 4
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [16, 12, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [16, 2, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 8]
  // expected-error @below {{must be followed by nothing but unrolls in a GPU schedule; tcl.sched.tile follows}}
  tcl.sched.unroll level 2 dim 2 by 4
  tcl.sched.tile [0, 0, 2]
}

// -----

// On a GPU, pad puts a matmul's inputs in shared memory at each step of a
// sequential level of reductions inside the thread level.
// CHECK-LABEL: tcl.sched.schedule task "shared"
//       CHECK:   tcl.sched.pad [0, 1]
tcl.sched.schedule task "shared" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
  tcl.sched.pad [0, 1]
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
  // expected-error @below {{on a GPU, pads both inputs of the matmul into shared memory: list [0, 1], got [1]}}
  tcl.sched.pad [1]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 16]
  // expected-error @below {{on a GPU, follows a sequential tile level inside the thread level that tiles the reduction only: its steps are the tiles that go to shared memory}}
  tcl.sched.pad [0, 1]
}

// -----

tcl.sched.schedule task "t" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 96 parallel, 128 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
  // expected-error @below {{on a GPU, copies into shared memory at each step of its level; there is no hoist}}
  tcl.sched.pad [0, 1] hoist 1
}

// -----

tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "nvptx-sm90"
    loops [1 parallel, 8 parallel, 8 parallel, 16 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 4, 4, 16, 0, 0, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [0, 1, 1, 4, 0, 0, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 0, 0, 1, 1, 8]
  // expected-error @below {{on a GPU, pads (into shared memory) the inputs of a matmul or batch matmul only, not of linalg.conv_2d_nhwc_hwcf}}
  tcl.sched.pad [0, 1]
}
