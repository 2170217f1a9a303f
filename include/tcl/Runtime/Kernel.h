//===- Kernel.h - Compiled kernels: JIT and shared libraries ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A kernel is one public function of a module of linalg on tensors (with its
// schedules), compiled by tcl-lower-to-llvm for a platform and callable with
// plain buffers. Two back ends share one calling convention, the C interface
// `_mlir_ciface_<entry>(in0*, ..., out0*, ...)` taking strided memref
// descriptors, so JIT and AOT code can be compared bit for bit:
//   - Kernel::jit: mlir::ExecutionEngine in this process;
//   - Kernel::load: a shared library written by tcl-compile --emit=so.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_RUNTIME_KERNEL_H
#define TCL_RUNTIME_KERNEL_H

#include "tcl/Support/Buffer.h"
#include "tcl/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace tcl {

/// One tensor a kernel takes or returns: its element type, static shape and
/// name (a model's graph input or output; empty for a task's tensors).
struct TensorSpec {
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  std::string name;

  bool operator==(const TensorSpec &other) const {
    return type == other.type && shape == other.shape && name == other.name;
  }
  bool operator!=(const TensorSpec &other) const { return !(*this == other); }
};

/// The tensors a kernel takes and returns.
struct KernelSignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;

  /// Reads the signature of function `entry` in `module`, which must take and
  /// return statically shaped tensors of boundary element types (see
  /// getBoundaryElementType).
  static llvm::Expected<KernelSignature> fromFunction(ModuleOp module,
                                                      llvm::StringRef entry);
  /// Zero-filled outputs.
  std::vector<Buffer> makeOutputs() const;
  /// The signature as text, as a shared library from emitSharedLibrary
  /// records it (formatKernelSignature): `f32[64x64],f32[64]->f32[64x64]`.
  std::string str() const;
  /// Float inputs filled with uniform values in [-1, 1) from a std::mt19937
  /// seeded with `seed`: the same inputs on every machine. Integer and bool
  /// inputs are zeros: a valid index into any dimension, and a valid mask.
  std::vector<Buffer> makeRandomInputs(unsigned seed) const;
};

/// The tolerance of every check of computed outputs (the measurement
/// worker, tcl-run, the ONNX node tests): an output is right when
/// maxRelativeError(got, want) <= kOutputTolerance.
constexpr double kOutputTolerance = 1e-3;

/// Where `got` differs most from `want`: |got - want| / (1 + |want|) at
/// element `index` of output `output`; infinity where one side has a NaN
/// the other lacks, where two integer or bool elements differ at all (they
/// are exact), or where two buffers differ in size or element type.
struct OutputError {
  double error = 0;
  size_t output = 0, index = 0;
};
OutputError findLargestError(const std::vector<Buffer> &got,
                             const std::vector<Buffer> &want);

/// findLargestError(got, want).error.
double maxRelativeError(const std::vector<Buffer> &got,
                        const std::vector<Buffer> &want);

/// A worker's references (random inputs and the plain-loop outputs) by
/// workload, the least recently used dropped first once they exceed a byte
/// budget: a tuning run or a dataset collection visits hundreds of tasks, and
/// keeping every reference grew each worker past 300 MB.
class ReferenceCache {
public:
  struct Entry {
    KernelSignature signature;
    std::vector<Buffer> inputs;
    std::vector<Buffer> outputs;
  };

  explicit ReferenceCache(size_t budgetBytes) : budgetBytes(budgetBytes) {}

  /// `key`'s entry, now the most recently used; null if it is not cached.
  const Entry *lookup(llvm::StringRef key);
  /// Adds `key`'s entry (replacing one with the same key), then drops the
  /// least recently used others until the cache fits its budget; the new
  /// entry always stays.
  const Entry &insert(std::string key, Entry entry);

  size_t size() const { return entries.size(); }
  size_t getBytes() const { return bytes; }

private:
  using Iterator = std::list<std::pair<std::string, Entry>>::iterator;
  Iterator find(llvm::StringRef key);
  static size_t getBytes(const Entry &entry);

  size_t budgetBytes;
  size_t bytes = 0;
  /// Most recently used first. A linear lookup is fine: a few hundred
  /// entries at most, against a compile per request.
  std::list<std::pair<std::string, Entry>> entries;
};

class Kernel {
public:
  ~Kernel();
  Kernel(Kernel &&) noexcept;
  Kernel &operator=(Kernel &&) noexcept;

  /// Lowers `module` (consumed) with tcl-lower-to-llvm and JIT-compiles it
  /// for the options' platform at -O3. For a GPU platform: with
  /// tcl-lower-to-nvvm, the host code JIT-compiled for this host and its
  /// kernels run through libtcl_cuda_runtime (refused, with the reason,
  /// where there is no CUDA device).
  static llvm::Expected<Kernel> jit(ModuleOp module, llvm::StringRef entry,
                                    const LoweringOptions &options);
  /// Parses `source` and JIT-compiles it.
  static llvm::Expected<Kernel> jit(llvm::StringRef source,
                                    llvm::StringRef entry,
                                    const LoweringOptions &options);
  /// Loads `_mlir_ciface_<entry>` from a shared library compiled by
  /// tcl-compile from a function with signature `signature`. Refuses a file
  /// that is not a complete shared library (before dlopen maps it), one
  /// whose content hash does not match (damaged), a library for a platform
  /// the host cannot run, and one whose recorded signature of `entry`
  /// (names, element types, shapes) differs from `signature`.
  static llvm::Expected<Kernel> load(llvm::StringRef libraryPath,
                                     llvm::StringRef entry,
                                     KernelSignature signature);

  const KernelSignature &getSignature() const { return signature; }

  /// The address of a global the compiled code defines (e.g. the profile's
  /// counters, tcl/Runtime/Profile.h); null if it defines none of that name.
  void *lookupGlobal(llvm::StringRef symbol) const;

  /// Runs the kernel; the shapes must match the signature.
  llvm::Error run(const std::vector<Buffer> &inputs,
                  std::vector<Buffer> &outputs) const;
  /// Runs the kernel with the OpenMP runtime's spin time (KMP_BLOCKTIME,
  /// 200 ms) at zero, so that its threads sleep as soon as the run ends
  /// instead of spinning on cores that other work needs (the measurement
  /// workers' builds); later runs spin as before. A plain run when no
  /// parallel kernel has loaded the runtime.
  llvm::Error runThenSleepThreads(const std::vector<Buffer> &inputs,
                                  std::vector<Buffer> &outputs) const;

private:
  Kernel() = default;

  KernelSignature signature;
  void *function = nullptr;
  std::unique_ptr<ExecutionEngine> engine;
  void *library = nullptr;
  /// Host code of GPU kernels: a run reports the GPU runtime's errors.
  bool gpu = false;
};

/// While alive, binds each thread of the OpenMP team that tcl's parallel
/// kernels run on (libomp's, see getOpenMPRuntimeLibrary) to a CPU of its
/// own among those this process may use, the calling thread included; its
/// destructor lets them all run anywhere again. For timing: a worker that
/// slept may wake on its waker's CPU and stay there for hundreds of
/// milliseconds (a 2-thread MobileNetV2 ran 10.9 ms a run over 50 runs,
/// 7.1 over 1500, on a 2-vCPU EPYC). The environment's OMP_PROC_BIND
/// cannot do it in tcl's processes: GNU libgomp, loaded too (oneDNN,
/// libtorch), binds the initial thread to one CPU first, and libomp then
/// binds every thread to that CPU. Does nothing where libomp is not loaded
/// or the process may use a single CPU; keep other runtimes' work (oneDNN)
/// outside its lifetime, whose threads would inherit the calling thread's
/// CPU.
class OpenMPThreadPinning {
public:
  OpenMPThreadPinning();
  ~OpenMPThreadPinning();
  OpenMPThreadPinning(const OpenMPThreadPinning &) = delete;
  OpenMPThreadPinning &operator=(const OpenMPThreadPinning &) = delete;

  /// The CPU each team thread was bound to, by thread number (empty when
  /// nothing was bound).
  const std::vector<int> &getBoundCpus() const { return boundCpus; }

private:
  void *runtime = nullptr;
  /// The CPUs this process may use, in order.
  std::vector<int> allowedCpus;
  std::vector<int> boundCpus;
};

/// Returns `text` with every tcl.sched.schedule removed: the naive version of
/// a scheduled module (linalg ops lowered to plain loops), used as reference.
llvm::Expected<std::string> stripSchedules(llvm::StringRef text);

} // namespace tcl
} // namespace mlir

#endif // TCL_RUNTIME_KERNEL_H
