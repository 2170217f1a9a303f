// tcl-profile-nests counts, in the code itself, the time stamp counter's
// ticks and the calls of every outlined nest's call site and of each
// public function's whole run, in a public global the runner reads, beside
// a text naming each site (function, callee, task, ops).
// RUN: tcl-opt %s -split-input-file --tcl-profile-nests -verify-diagnostics | FileCheck %s

// Three sites: @model's whole run, then its two calls. The text: 9 + 30 +
// 27 bytes and the NUL ("model\t\t\t\n", "model\tmodel.mm_0\tmm_0\tscf.for\n",
// "model\tmodel.pad\t\tfill,copy\n"; the runtime's ProfileTest reads it).
// CHECK-DAG: memref.global "public" @tcl_profile_counters : memref<3x2xi64> = dense<0>
// CHECK-DAG: memref.global "public" constant @tcl_profile_sites : memref<67xi8>
// The nests themselves are left alone.
// CHECK-LABEL: func.func private @model.mm_0(
//   CHECK-NOT:   readcyclecounter
//       CHECK:   return
// CHECK-LABEL: func.func @model(
//       CHECK:   %[[START:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
//       CHECK:   %[[COUNTERS:.*]] = memref.get_global @tcl_profile_counters
//       CHECK:   %[[T0:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"
//  CHECK-NEXT:   call @model.mm_0(
//  CHECK-NEXT:   %[[T1:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"
//   CHECK-DAG:   %[[SITE1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[TICKS:.*]] = arith.subi %[[T1]], %[[T0]]
//       CHECK:   %[[OLD:.*]] = memref.load %[[COUNTERS]][%[[SITE1]], %{{.*}}]
//       CHECK:   %[[SUM:.*]] = arith.addi %[[OLD]], %[[TICKS]]
//       CHECK:   memref.store %[[SUM]], %[[COUNTERS]][%[[SITE1]], %{{.*}}]
//       CHECK:   call @model.pad(
//       CHECK:   memref.store
//       CHECK:   memref.store
//       CHECK:   %[[END:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"
//  CHECK-NEXT:   %[[SITE0:.*]] = arith.constant 0 : index
//       CHECK:   arith.subi %[[END]], %[[START]]
//       CHECK:   memref.store {{.*}}, %[[COUNTERS]][%[[SITE0]],
//       CHECK:   return
func.func private @model.mm_0(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<16xf32>
  } {tcl.task_nest = "mm_0"}
  return
}
func.func private @model.pad(%a: memref<16xf32>, %b: memref<18xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<18xf32>)
  %inner = memref.subview %b[1] [16] [1] : memref<18xf32> to memref<16xf32, strided<[1], offset: 1>>
  linalg.copy ins(%a : memref<16xf32>) outs(%inner : memref<16xf32, strided<[1], offset: 1>>)
  return
}
func.func @model(%a: memref<16xf32>, %b: memref<18xf32>) {
  call @model.mm_0(%a) : (memref<16xf32>) -> ()
  call @model.pad(%a, %b) : (memref<16xf32>, memref<18xf32>) -> ()
  return
}

// -----

// Nothing to count: no public function calls a nest.
// CHECK-LABEL: func.func @plain(
//   CHECK-NOT: tcl_profile
func.func @plain(%a: memref<16xf32>) {
  return
}

// -----

// A module profiled twice would count every call twice.
// expected-error @+1 {{is profiled already (it has a symbol named tcl_profile_counters or tcl_profile_sites)}}
module {
  memref.global @tcl_profile_counters : memref<1x2xi64> = dense<0>
  func.func private @f.nest0() {
    return
  }
  func.func @f() {
    call @f.nest0() : () -> ()
    return
  }
}
