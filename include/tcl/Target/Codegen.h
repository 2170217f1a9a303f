//===- Codegen.h - LLVM IR, objects and shared libraries --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// From a module in the LLVM dialect (the output of tcl-lower-to-llvm) to LLVM
// IR optimized at -O3, object files and shared libraries for a named
// platform. The JIT (Runtime) uses the same target machine, so AOT and JIT
// code are the same code.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TARGET_CODEGEN_H
#define TCL_TARGET_CODEGEN_H

#include "tcl/Target/Platform.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace tcl {

/// Registers the MLIR -> LLVM IR translations tcl's lowered modules need.
void registerLLVMTranslations(DialectRegistry &registry);

/// The CPU architecture a platform's host code is compiled for: the
/// platform itself for a CPU, generic x86-64 (x86-sse42) for the host code
/// of a GPU platform's kernels.
const TargetArch &getHostCodeArch(const TargetArch &platform);

/// The target machine of a CPU platform (PIC, -O3 code generation).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetArch &platform);

/// How LLVM turns a lowered module into machine code.
struct CodegenOptions {
  /// Threads that optimize and generate code for a shared library, each for
  /// a share of the module's functions (a model's loop nests are functions
  /// of their own, see tcl-outline-loop-nests); 0: one a core. Object files
  /// and LLVM IR are made on the calling thread.
  unsigned threads = 1;
  /// Where the time of each phase goes, if set (tcl-compile --timing).
  TimingScope *timing = nullptr;
};

/// Translates a lowered module to LLVM IR for `machine` and optimizes it
/// at -O3.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateAndOptimize(ModuleOp module, llvm::LLVMContext &llvmContext,
                     llvm::TargetMachine &machine);

/// Writes `llvmModule` as an object file to `path`.
llvm::Error writeObjectFile(llvm::Module &llvmModule,
                            llvm::TargetMachine &machine, llvm::StringRef path);

/// A lowered module translated and optimized for `target`, written as an
/// object file to `path`.
llvm::Error emitObjectFile(ModuleOp module, const TargetArch &target,
                           llvm::StringRef path,
                           const CodegenOptions &options = {});
/// A lowered module translated and optimized for `target`, printed as
/// LLVM IR to `os`.
llvm::Error emitLLVMIR(ModuleOp module, const TargetArch &target,
                       llvm::raw_ostream &os);

/// Links `objectPaths` (and the C sources `cSources`, compiled at -O2) into
/// the shared library `libraryPath`. The library depends on libc, libm and,
/// when `usesOpenMP`, the OpenMP runtime; when `usesCudaRuntime` (the host
/// code of GPU kernels), on libtcl_cuda_runtime.so, found beside the
/// library first ($ORIGIN), else where tcl has it (findCudaRuntimeDir).
llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
                              llvm::StringRef libraryPath, bool usesOpenMP,
                              llvm::ArrayRef<std::string> cSources = {},
                              bool usesCudaRuntime = false);

/// The symbol of the NUL-terminated name of the platform a shared library
/// from emitSharedLibrary was compiled for, so that a loader can refuse code
/// its host cannot execute instead of dying of an illegal instruction.
inline constexpr llvm::StringLiteral kLibraryTargetSymbol =
    "tcl_library_target";

/// The prefix of the symbols that hold the NUL-terminated signature (see
/// formatKernelSignature) of each function `@f` of a shared library from
/// emitSharedLibrary: `tcl_library_signature_f`. A loader compares it with
/// the signature it calls the function with, so that a library built for
/// another model is refused instead of reading and writing out of bounds.
inline constexpr llvm::StringLiteral kLibrarySignatureSymbolPrefix =
    "tcl_library_signature_";

/// One tensor of a signature as text: its name if it has one (a model's
/// graph input or output), the element type and the shape: `x:f32[64x64]`,
/// `f32[64x64]` (`?` for a dynamic size, `f32[]` for rank 0).
std::string formatSignatureTensor(llvm::StringRef elementType,
                                  llvm::ArrayRef<int64_t> shape,
                                  llvm::StringRef name = "");
/// A function's signature as text, its inputs then its outputs (each from
/// formatSignatureTensor): `f32[64x64],f32[64x64]->f32[64x64]`.
std::string formatKernelSignature(llvm::ArrayRef<std::string> inputs,
                                  llvm::ArrayRef<std::string> outputs);

/// A shared library from emitSharedLibrary ends with a trailer of 16 bytes:
/// the hash (hashLibraryContents, 8 bytes, little-endian) of every byte
/// before the trailer, then these 8 bytes. A loader (Kernel::load, the
/// compiled model's tcl_model_create) recomputes it and refuses a damaged
/// or truncated library. The dynamic loader ignores bytes past the ELF
/// file's sections.
inline constexpr llvm::StringLiteral kLibraryHashMagic = "tcl-hash";
constexpr size_t kLibraryTrailerSize = 16;

/// The content hash of a library: FNV-1a's multiply over 8-byte
/// little-endian words, then the tail bytes, folded. Not cryptographic: it
/// detects damage (any change of one word changes it), not tampering.
uint64_t hashLibraryContents(llvm::ArrayRef<uint8_t> bytes);

/// The C source of the generic allocation functions tcl's lowered code
/// calls for its temporary buffers (_mlir_memref_to_llvm_alloc and
/// _mlir_memref_to_llvm_free, hidden), which keep freed blocks for the next
/// run (lib/Target/TemporaryCache.c). emitSharedLibrary links it into every
/// library; the JIT (Kernel::jit) binds the same functions, compiled into
/// tcl (getTemporaryAllocationSymbols).
llvm::StringRef getTemporaryCacheSource();

/// The allocation functions of getTemporaryCacheSource as compiled into
/// tcl, by the names lowered code calls them.
llvm::ArrayRef<std::pair<llvm::StringRef, void *>>
getTemporaryAllocationSymbols();

/// The same hash as C source, a function `static uint64_t
/// tcl_hash_contents(const unsigned char *bytes, uint64_t size)`, for the C
/// API that checks its own library (ModelInterface).
llvm::StringRef getLibraryHashCSource();

/// Success if `contents` (the bytes of the library at `path`) end with a
/// trailer whose hash matches; else an error naming the file and what is
/// wrong.
llvm::Error checkLibraryHash(llvm::StringRef path,
                             llvm::ArrayRef<uint8_t> contents);

/// The name and signature text of one function of a library.
struct FunctionSignature {
  std::string name;
  std::string signature;
};
/// The signatures of the public functions with a body of `module`, a module
/// on tensors (read them before lowering, which erases the tensor types).
/// A type that is not a ranked tensor is written as MLIR prints it.
std::vector<FunctionSignature> getFunctionSignatures(ModuleOp module);

/// Compiles a lowered module to a shared library at `libraryPath`: LLVM IR at
/// -O3, object files in a temporary location (one per thread of `options`),
/// then the system linker.
/// With `cApiSource`, that C code (see ModelInterface) is linked in too. The
/// library names its platform (kLibraryTargetSymbol) and the signature of
/// each function in `signatures` (kLibrarySignatureSymbolPrefix), which
/// getFunctionSignatures read from the module before it was lowered.
llvm::Error emitSharedLibrary(ModuleOp module, const TargetArch &platform,
                              bool usesOpenMP, llvm::StringRef libraryPath,
                              llvm::ArrayRef<FunctionSignature> signatures,
                              llvm::StringRef cApiSource = "",
                              const CodegenOptions &options = {});

/// The directory of the OpenMP runtime tcl links parallel code against.
llvm::StringRef getOpenMPRuntimeDir();
/// That runtime's shared library, what the JIT loads for parallel kernels
/// (null-terminated: its data() can go to dlopen).
llvm::StringRef getOpenMPRuntimeLibrary();

} // namespace tcl
} // namespace mlir

#endif // TCL_TARGET_CODEGEN_H
