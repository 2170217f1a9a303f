# Precompiled headers for the targets whose translation units spend most of
# their compile time parsing the same large headers: MLIR's dialects (about
# 20 s of a 22 s compile of a pass) and libtorch (about 19 s of every cost
# model source). A clean build and CI build each target's header once
# instead of once a source; -DTCL_PRECOMPILE_HEADERS=OFF builds without
# them, which is how to check that every source includes what it uses.
option(TCL_PRECOMPILE_HEADERS "Precompile the MLIR and libtorch headers" ON)

# The MLIR headers most of the compiler's sources include.
set(TCL_MLIR_PRECOMPILED_HEADERS
  [["mlir/Dialect/Arith/IR/Arith.h"]]
  [["mlir/Dialect/Func/IR/FuncOps.h"]]
  [["mlir/Dialect/Linalg/IR/Linalg.h"]]
  [["mlir/Dialect/MemRef/IR/MemRef.h"]]
  [["mlir/Dialect/SCF/IR/SCF.h"]]
  [["mlir/Dialect/Tensor/IR/Tensor.h"]]
  [["mlir/IR/PatternMatch.h"]]
  [["mlir/Transforms/GreedyPatternRewriteDriver.h"]]
  [["llvm/ADT/STLExtras.h"]]
  [["llvm/ADT/StringExtras.h"]]
  [["llvm/Support/raw_ostream.h"]])

# tcl_precompile_headers(<target> MLIR|TORCH [<header>...]): precompiles the
# MLIR or the libtorch headers, and any further headers named, for the
# sources of <target> (a target made by add_mlir_library compiles its
# sources in obj.<target>). Each target builds its own precompiled header
# with its own flags (exceptions, RTTI, sanitizers), so this pays off only
# for targets of several heavy sources.
function(tcl_precompile_headers target kind)
  if(NOT TCL_PRECOMPILE_HEADERS)
    return()
  endif()
  if(TARGET obj.${target})
    set(target obj.${target})
  endif()
  if(kind STREQUAL "MLIR")
    set(headers ${TCL_MLIR_PRECOMPILED_HEADERS})
  elseif(kind STREQUAL "TORCH")
    set(headers <torch/torch.h>)
  else()
    message(FATAL_ERROR "tcl_precompile_headers: unknown kind '${kind}'")
  endif()
  target_precompile_headers(${target} PRIVATE ${headers} ${ARGN})
endfunction()
