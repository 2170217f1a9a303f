//===- Kernel.cpp - Compiled kernels: JIT and shared libraries ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Kernel.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Cuda/Driver.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Target/GpuCodegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <random>
#include <sched.h>
#include <utility>

using namespace mlir;
using namespace mlir::tcl;

//===----------------------------------------------------------------------===//
// Buffers and signatures
//===----------------------------------------------------------------------===//

static llvm::Expected<TensorSpec>
getBoundaryTensor(Type type, DictionaryAttr attributes, const Twine &what) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  std::optional<ElementType> element =
      shaped
          ? getBoundaryElementType(
                shaped.getElementType(),
                attributes ? attributes.get(kElementTypeAttrName) : Attribute())
          : std::nullopt;
  if (!shaped || !shaped.hasStaticShape() || !element)
    return llvm::createStringError(
        (what + " must be a statically shaped tensor of f32, i64, i32 or i8 "
                "(u8 and bool are i8 with a tcl.element_type attribute)")
            .str());
  auto name =
      attributes ? attributes.getAs<StringAttr>("tcl.name") : StringAttr();
  return TensorSpec{
      *element,
      std::vector<int64_t>(shaped.getShape().begin(), shaped.getShape().end()),
      name ? name.str() : ""};
}

llvm::Expected<KernelSignature>
KernelSignature::fromFunction(ModuleOp module, llvm::StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return llvm::createStringError("no function @" + entry.str());
  KernelSignature signature;
  for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensor = getBoundaryTensor(type, func.getArgAttrDict(index),
                                    "argument " + Twine(index));
    if (!tensor)
      return tensor.takeError();
    signature.inputs.push_back(std::move(*tensor));
  }
  for (auto [index, type] : llvm::enumerate(func.getResultTypes())) {
    auto tensor = getBoundaryTensor(type, func.getResultAttrDict(index),
                                    "result " + Twine(index));
    if (!tensor)
      return tensor.takeError();
    signature.outputs.push_back(std::move(*tensor));
  }
  return signature;
}

std::string KernelSignature::str() const {
  auto format = [](const std::vector<TensorSpec> &tensors) {
    return llvm::map_to_vector(tensors, [](const TensorSpec &tensor) {
      return formatSignatureTensor(getElementTypeName(tensor.type),
                                   tensor.shape, tensor.name);
    });
  };
  return formatKernelSignature(format(inputs), format(outputs));
}

std::vector<Buffer> KernelSignature::makeOutputs() const {
  std::vector<Buffer> buffers;
  for (const TensorSpec &tensor : outputs)
    buffers.push_back(Buffer::zeros(tensor.shape, tensor.type));
  return buffers;
}

std::vector<Buffer> KernelSignature::makeRandomInputs(unsigned seed) const {
  // The top 24 bits of each draw, scaled: exact in a float, and several
  // times faster than std::uniform_real_distribution, whose libstdc++
  // generate_canonical takes a long-double logarithm on every call (16% of a
  // measuring worker's time when it filled the inputs of every reference).
  std::mt19937 rng(seed);
  std::vector<Buffer> buffers;
  for (const TensorSpec &tensor : inputs) {
    Buffer buffer = Buffer::zeros(tensor.shape, tensor.type);
    for (float &value : buffer.data)
      value = float(int32_t(rng() >> 8) - (1 << 23)) * 0x1p-23f;
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

OutputError mlir::tcl::findLargestError(const std::vector<Buffer> &got,
                                        const std::vector<Buffer> &want) {
  OutputError largest;
  if (got.size() != want.size()) {
    largest.error = INFINITY;
    return largest;
  }
  for (size_t output = 0; output < got.size(); ++output) {
    if (got[output].type != want[output].type)
      return {INFINITY, output, 0};
    if (!got[output].isFloat()) {
      const std::vector<int64_t> &g = got[output].ints, &w = want[output].ints;
      auto [mismatch, unused] =
          std::mismatch(g.begin(), g.end(), w.begin(), w.end());
      if (mismatch != g.end() || g.size() != w.size())
        return {INFINITY, output, size_t(mismatch - g.begin())};
      continue;
    }
    const std::vector<float> &g = got[output].data, &w = want[output].data;
    if (g.size() != w.size())
      return {INFINITY, output, std::min(g.size(), w.size())};
    for (size_t index = 0; index < g.size(); ++index) {
      if (std::isnan(g[index]) != std::isnan(w[index]))
        return {INFINITY, output, index};
      if (std::isnan(g[index]))
        continue;
      double error = std::fabs(double(g[index]) - w[index]) /
                     (1.0 + std::fabs(double(w[index])));
      if (error > largest.error)
        largest = {error, output, index};
    }
  }
  return largest;
}

double mlir::tcl::maxRelativeError(const std::vector<Buffer> &got,
                                   const std::vector<Buffer> &want) {
  return findLargestError(got, want).error;
}

size_t ReferenceCache::getBytes(const Entry &entry) {
  size_t bytes = 0;
  for (const std::vector<Buffer> *buffers : {&entry.inputs, &entry.outputs})
    for (const Buffer &buffer : *buffers)
      bytes += buffer.data.size() * sizeof(float) +
               buffer.ints.size() * sizeof(int64_t);
  return bytes;
}

ReferenceCache::Iterator ReferenceCache::find(llvm::StringRef key) {
  return llvm::find_if(entries, [&](const auto &keyAndEntry) {
    return keyAndEntry.first == key;
  });
}

const ReferenceCache::Entry *ReferenceCache::lookup(llvm::StringRef key) {
  auto found = find(key);
  if (found == entries.end())
    return nullptr;
  entries.splice(entries.begin(), entries, found);
  return &entries.front().second;
}

const ReferenceCache::Entry &ReferenceCache::insert(std::string key,
                                                    Entry entry) {
  auto same = find(key);
  if (same != entries.end()) {
    bytes -= getBytes(same->second);
    entries.erase(same);
  }
  bytes += getBytes(entry);
  entries.emplace_front(std::move(key), std::move(entry));
  while (bytes > budgetBytes && entries.size() > 1) {
    bytes -= getBytes(entries.back().second);
    entries.pop_back();
  }
  return entries.front().second;
}

llvm::Error Kernel::runThenSleepThreads(const std::vector<Buffer> &inputs,
                                        std::vector<Buffer> &outputs) const {
  // Looked up in the runtime the JIT loads, by handle: a process may hold
  // GNU's libgomp too (through OpenBLAS), whose symbols share some names.
  // OpenMP's own soft pause (omp_pause_resource_all) does not stop threads
  // that are already spinning; a zero spin time for one run does.
  void *runtime =
      dlopen(getOpenMPRuntimeLibrary().data(), RTLD_LAZY | RTLD_NOLOAD);
  if (!runtime)
    return run(inputs, outputs);
  auto setBlockTime =
      reinterpret_cast<void (*)(int)>(dlsym(runtime, "kmp_set_blocktime"));
  auto getBlockTime =
      reinterpret_cast<int (*)()>(dlsym(runtime, "kmp_get_blocktime"));
  if (!setBlockTime || !getBlockTime) {
    dlclose(runtime);
    return run(inputs, outputs);
  }
  int blockTime = getBlockTime();
  setBlockTime(0);
  llvm::Error error = run(inputs, outputs);
  setBlockTime(blockTime);
  dlclose(runtime);
  return error;
}

namespace {
/// libomp's source location record (kmp.h's ident_t), as compiled code
/// passes it to __kmpc_fork_call.
struct OpenMPLocation {
  int32_t reserved1 = 0;
  int32_t flags = 2; // KMP_IDENT_KMPC
  int32_t reserved2 = 0;
  int32_t reserved3 = 0;
  const char *source = ";tcl;OpenMPThreadPinning;0;0;;";
};

using OpenMPMicrotask = void (*)(int32_t *, int32_t *, ...);
using OpenMPForkCall = void (*)(OpenMPLocation *, int32_t, OpenMPMicrotask,
                                ...);

/// What each team thread does in a pinning region: bind itself to the CPU
/// of its thread number (or to all `allowed` CPUs) and record that CPU.
struct PinningRegion {
  int (*threadNumber)() = nullptr;
  const std::vector<int> *allowed = nullptr;
  bool bind = true;
  std::vector<int> *bound = nullptr;
  std::mutex *mutex = nullptr;
};

void runPinningRegion(int32_t *, int32_t *, PinningRegion *region) {
  int thread = region->threadNumber();
  cpu_set_t set;
  CPU_ZERO(&set);
  const std::vector<int> &allowed = *region->allowed;
  int cpu = allowed[thread % allowed.size()];
  if (region->bind)
    CPU_SET(cpu, &set);
  else
    for (int each : allowed)
      CPU_SET(each, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0 ||
      !region->bind)
    return;
  std::lock_guard<std::mutex> lock(*region->mutex);
  if (region->bound->size() <= static_cast<size_t>(thread))
    region->bound->resize(thread + 1, -1);
  (*region->bound)[thread] = cpu;
}

/// Runs `region` on every thread of libomp's team (`runtime`'s handle).
bool forkPinningRegion(void *runtime, PinningRegion &region) {
  auto fork =
      reinterpret_cast<OpenMPForkCall>(dlsym(runtime, "__kmpc_fork_call"));
  region.threadNumber =
      reinterpret_cast<int (*)()>(dlsym(runtime, "omp_get_thread_num"));
  if (!fork || !region.threadNumber)
    return false;
  OpenMPLocation location;
  fork(&location, 1, reinterpret_cast<OpenMPMicrotask>(&runPinningRegion),
       &region);
  return true;
}
} // namespace

OpenMPThreadPinning::OpenMPThreadPinning() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      allowedCpus.push_back(cpu);
  if (allowedCpus.size() < 2)
    return;
  // Looked up by handle, as in runThenSleepThreads: GNU's libgomp shares
  // some of these names.
  runtime = dlopen(getOpenMPRuntimeLibrary().data(), RTLD_LAZY | RTLD_NOLOAD);
  if (!runtime)
    return;
  std::mutex mutex;
  PinningRegion region;
  region.allowed = &allowedCpus;
  region.bound = &boundCpus;
  region.mutex = &mutex;
  if (!forkPinningRegion(runtime, region)) {
    dlclose(runtime);
    runtime = nullptr;
  }
}

OpenMPThreadPinning::~OpenMPThreadPinning() {
  if (!runtime)
    return;
  PinningRegion region;
  region.allowed = &allowedCpus;
  region.bind = false;
  forkPinningRegion(runtime, region);
  dlclose(runtime);
}

//===----------------------------------------------------------------------===//
// Calling convention
//===----------------------------------------------------------------------===//

namespace {
/// A ranked strided memref descriptor, laid out as MLIR's
/// StridedMemRefType<T, rank>: {allocated, aligned, offset, sizes[rank],
/// strides[rank]}. f32 and i64 buffers are passed in place; narrower
/// integer types are copied to their width before the call and back after.
struct Descriptor {
  std::vector<int64_t> words;
  std::vector<uint8_t> narrow;

  explicit Descriptor(const Buffer &buffer) {
    void *data;
    if (buffer.isFloat())
      data = const_cast<float *>(buffer.data.data());
    else if (buffer.type == ElementType::I64)
      data = const_cast<int64_t *>(buffer.ints.data());
    else
      data = pack(buffer);
    size_t rank = buffer.shape.size();
    words.resize(3 + 2 * rank);
    words[0] = reinterpret_cast<int64_t>(data);
    words[1] = reinterpret_cast<int64_t>(data);
    words[2] = 0;
    int64_t stride = 1;
    for (size_t dim = rank; dim-- > 0;) {
      words[3 + dim] = buffer.shape[dim];
      words[3 + rank + dim] = stride;
      stride *= buffer.shape[dim];
    }
  }

  /// Copies what the kernel wrote in the narrow copy back into `buffer`.
  void unpack(Buffer &buffer) const {
    if (buffer.isFloat() || buffer.type == ElementType::I64)
      return;
    for (size_t i = 0; i < buffer.ints.size(); ++i) {
      const uint8_t *element = narrow.data() + i * getElementSize(buffer.type);
      switch (buffer.type) {
      case ElementType::I32: {
        int32_t value;
        std::memcpy(&value, element, sizeof(value));
        buffer.ints[i] = value;
        break;
      }
      case ElementType::I8:
        buffer.ints[i] = static_cast<int8_t>(*element);
        break;
      case ElementType::U8:
        buffer.ints[i] = *element;
        break;
      case ElementType::Bool:
        buffer.ints[i] = *element != 0;
        break;
      default:
        llvm_unreachable("f32 and i64 are passed in place");
      }
    }
  }

private:
  void *pack(const Buffer &buffer) {
    size_t width = getElementSize(buffer.type);
    // One byte more, so that an empty tensor still has an address.
    narrow.assign(buffer.ints.size() * width + 1, 0);
    for (size_t i = 0; i < buffer.ints.size(); ++i) {
      int64_t value = buffer.ints[i];
      if (buffer.type == ElementType::I32) {
        auto narrowed = static_cast<int32_t>(value);
        std::memcpy(narrow.data() + i * width, &narrowed, width);
      } else {
        narrow[i] = static_cast<uint8_t>(
            buffer.type == ElementType::Bool ? value != 0 : value);
      }
    }
    return narrow.data();
  }
};
} // namespace

/// Calls a C-interface function whose arguments are all pointers. The
/// argument count is only known at run time; kernels with more arguments
/// than this are rejected when they are loaded. (A Winograd output
/// transform with a residual epilogue takes 15: six slices, six coefficient
/// columns, bias, residual and result.)
static constexpr size_t kMaxKernelArguments = 32;

template <size_t> using Pointer = void *;

template <size_t... Index>
static void callWithPointers(void *function, void **args,
                             std::index_sequence<Index...>) {
  reinterpret_cast<void (*)(Pointer<Index>...)>(function)(args[Index]...);
}

template <size_t Count = 1>
static void callWithPointers(void *function, std::vector<void *> &args) {
  if constexpr (Count > kMaxKernelArguments) {
    llvm_unreachable("argument count checked when the kernel was created");
  } else {
    if (args.size() != Count)
      return callWithPointers<Count + 1>(function, args);
    callWithPointers(function, args.data(), std::make_index_sequence<Count>());
  }
}

static llvm::Error checkArity(const KernelSignature &signature) {
  size_t count = signature.inputs.size() + signature.outputs.size();
  if (count == 0 || count > kMaxKernelArguments)
    return llvm::createStringError(
        "kernels take 1 to " + std::to_string(kMaxKernelArguments) +
        " buffers; this one takes " + std::to_string(count));
  return llvm::Error::success();
}

llvm::Error Kernel::run(const std::vector<Buffer> &inputs,
                        std::vector<Buffer> &outputs) const {
  auto check = [](const std::vector<Buffer> &buffers,
                  const std::vector<TensorSpec> &tensors,
                  const char *what) -> llvm::Error {
    if (buffers.size() != tensors.size())
      return llvm::createStringError(std::string("expected ") +
                                     std::to_string(tensors.size()) + " " +
                                     what);
    for (auto [index, buffer, tensor] : llvm::enumerate(buffers, tensors)) {
      if (buffer.type != tensor.type)
        return llvm::createStringError(
            std::string(what) + " " + std::to_string(index) + " holds " +
            getElementTypeName(buffer.type).str() + " elements, not " +
            getElementTypeName(tensor.type).str());
      if (buffer.shape != tensor.shape ||
          (int64_t)buffer.size() != buffer.getNumElements())
        return llvm::createStringError(std::string("a buffer of the ") + what +
                                       " has the wrong shape");
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = check(inputs, signature.inputs, "inputs"))
    return error;
  if (llvm::Error error = check(outputs, signature.outputs, "outputs"))
    return error;
  std::vector<Descriptor> descriptors;
  descriptors.reserve(inputs.size() + outputs.size());
  for (const Buffer &buffer : inputs)
    descriptors.emplace_back(buffer);
  for (const Buffer &buffer : outputs)
    descriptors.emplace_back(buffer);
  std::vector<void *> args;
  for (Descriptor &descriptor : descriptors)
    args.push_back(descriptor.words.data());
  callWithPointers(function, args);
  if (gpu)
    if (std::string error = tclCudaTakeError(); !error.empty())
      return llvm::createStringError("the GPU run failed: " + error);
  for (auto [index, output] : llvm::enumerate(outputs))
    descriptors[inputs.size() + index].unpack(output);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

Kernel::~Kernel() {
  if (library)
    dlclose(library);
}
Kernel::Kernel(Kernel &&other) noexcept
    : signature(std::move(other.signature)), function(other.function),
      engine(std::move(other.engine)), library(other.library), gpu(other.gpu) {
  other.function = nullptr;
  other.library = nullptr;
}
Kernel &Kernel::operator=(Kernel &&other) noexcept {
  if (this != &other) {
    if (library)
      dlclose(library);
    signature = std::move(other.signature);
    function = other.function;
    engine = std::move(other.engine);
    library = other.library;
    gpu = other.gpu;
    other.function = nullptr;
    other.library = nullptr;
  }
  return *this;
}

/// Collects the diagnostics of `context` into a string for llvm::Error.
namespace {
struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          os << diag.getLocation() << ": " << diag;
          for (Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note;
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

/// Whether this host can run code for `target`: its ISA for a CPU, a CUDA
/// device for a GPU (says why not).
static llvm::Error checkCanRun(const TargetArch &target) {
  if (target.kind != TargetKind::GPU)
    return checkHostSupports(target);
  if (cuda::Driver::get())
    return llvm::Error::success();
  return llvm::createStringError("cannot run " + target.name +
                                 " code here: " + cuda::Driver::getLoadError());
}

llvm::Expected<Kernel> Kernel::jit(ModuleOp module, llvm::StringRef entry,
                                   const LoweringOptions &options) {
  const TargetArch &target = options.platform.getTarget();
  // Emulated, a GPU platform's code is the host's.
  bool emulated = target.kind == TargetKind::GPU && options.emulateGpu;
  bool gpu = target.kind == TargetKind::GPU && !emulated;
  if (llvm::Error error = checkCanRun(emulated ? getHostTargetArch() : target))
    return std::move(error);
  auto signature = KernelSignature::fromFunction(module, entry);
  if (!signature)
    return signature.takeError();
  if (llvm::Error error = checkArity(*signature))
    return std::move(error);

  MLIRContext *context = module.getContext();
  DiagnosticCollector diagnostics(context);
  PassManager pm(context);
  if (gpu)
    buildLowerToNVVMPipeline(pm, options, findCudaToolkit());
  else
    buildLowerToLLVMPipeline(pm, options);
  if (failed(pm.run(module)))
    return llvm::createStringError("lowering failed: " + diagnostics.text);

  // A GPU module's host code runs here; its kernels are in it as PTX, which
  // libtcl_cuda_runtime (in this process) loads.
  auto machine = createTargetMachine(emulated ? getHostTargetArch()
                                              : getHostCodeArch(target));
  if (!machine)
    return machine.takeError();
  // ExecutionEngineOptions holds the transformer by reference (function_ref):
  // it must outlive ExecutionEngine::create.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(3, 0, machine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  llvm::SmallVector<llvm::StringRef> libraries;
  if (options.platform.getThreads() > 1)
    libraries.push_back(getOpenMPRuntimeLibrary());
  engineOptions.sharedLibPaths = libraries;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*machine));
  if (!engine)
    return engine.takeError();
  // Lowered code allocates its temporaries through these (TemporaryCache.c).
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto [name, address] : getTemporaryAllocationSymbols())
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  auto address = (*engine)->lookup(("_mlir_ciface_" + entry).str());
  if (!address)
    return address.takeError();

  Kernel kernel;
  kernel.signature = std::move(*signature);
  kernel.function = *address;
  kernel.engine = std::move(*engine);
  kernel.gpu = gpu;
  return kernel;
}

llvm::Expected<Kernel> Kernel::jit(llvm::StringRef source,
                                   llvm::StringRef entry,
                                   const LoweringOptions &options) {
  DialectRegistry registry;
  registerTclDialects(registry);
  registerLLVMTranslations(registry);
  // The context must outlive the engine only while compiling.
  MLIRContext context(registry);
  DiagnosticCollector diagnostics(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return llvm::createStringError("cannot parse the module: " +
                                   diagnostics.text);
  return jit(*module, entry, options);
}

/// Checks the ELF file `object` (of `fileSize` bytes): a shared object whose
/// program headers and segments all lie within the file. dlopen maps the
/// segments without such checks, and touching a page past the end of a
/// truncated file raises SIGBUS.
template <typename ELFT>
static llvm::Error checkElfSharedLibrary(const llvm::object::ELFFile<ELFT> &elf,
                                         uint64_t fileSize) {
  if (elf.getHeader().e_type != llvm::ELF::ET_DYN)
    return llvm::createStringError("it is an ELF file but not a shared "
                                   "object");
  auto headers = elf.program_headers();
  if (!headers)
    return headers.takeError();
  if (headers->empty())
    return llvm::createStringError("it has no program headers");
  // Each byte range the loader maps or reads must lie inside the file.
  auto checkRange = [&](const char *what, size_t index, uint64_t offset,
                        uint64_t size) -> llvm::Error {
    if (offset <= fileSize && size <= fileSize - offset)
      return llvm::Error::success();
    return llvm::createStringError(
        what + llvm::Twine(" ") + llvm::Twine(index) + " spans bytes " +
        llvm::Twine(offset) + " to " + llvm::Twine(offset + size) +
        " of a file of " + llvm::Twine(fileSize) + " bytes");
  };
  for (auto [index, header] : llvm::enumerate(*headers))
    if (llvm::Error error = checkRange("program header", index, header.p_offset,
                                       header.p_filesz))
      return error;
  auto sections = elf.sections();
  if (!sections)
    return sections.takeError();
  for (auto [index, section] : llvm::enumerate(*sections))
    if (section.sh_type != llvm::ELF::SHT_NOBITS)
      if (llvm::Error error =
              checkRange("section", index, section.sh_offset, section.sh_size))
        return error;
  return llvm::Error::success();
}

/// Refuses `path` unless it is a complete ELF shared library.
static llvm::Error checkSharedLibraryFile(llvm::StringRef path) {
  auto fail = [&](llvm::Error reason) {
    return llvm::createStringError("'" + path +
                                   "' is not a complete shared library: " +
                                   llvm::toString(std::move(reason)));
  };
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot load " + path + ": " +
                                   buffer.getError().message());
  // Without reading the sections yet: the checks below say what is missing.
  auto object = llvm::object::ObjectFile::createObjectFile(
      (*buffer)->getMemBufferRef(), llvm::file_magic::unknown,
      /*InitContent=*/false);
  if (!object)
    return fail(object.takeError());
  uint64_t size = (*buffer)->getBufferSize();
  llvm::Error error = llvm::Error::success();
  if (auto *elf = dyn_cast<llvm::object::ELF32LEObjectFile>(object->get()))
    error = checkElfSharedLibrary(elf->getELFFile(), size);
  else if (auto *elf = dyn_cast<llvm::object::ELF32BEObjectFile>(object->get()))
    error = checkElfSharedLibrary(elf->getELFFile(), size);
  else if (auto *elf = dyn_cast<llvm::object::ELF64LEObjectFile>(object->get()))
    error = checkElfSharedLibrary(elf->getELFFile(), size);
  else if (auto *elf = dyn_cast<llvm::object::ELF64BEObjectFile>(object->get()))
    error = checkElfSharedLibrary(elf->getELFFile(), size);
  else
    error = llvm::createStringError("it is not an ELF file");
  if (error)
    return fail(std::move(error));
  return checkLibraryHash(
      path, llvm::ArrayRef<uint8_t>(
                reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
                size));
}

llvm::Expected<Kernel> Kernel::load(llvm::StringRef libraryPath,
                                    llvm::StringRef entry,
                                    KernelSignature signature) {
  if (llvm::Error error = checkArity(signature))
    return std::move(error);
  // A bare file name would make dlopen search the library path instead of
  // the current directory.
  llvm::SmallString<256> path(libraryPath);
  llvm::sys::fs::make_absolute(path);
  if (llvm::Error error = checkSharedLibraryFile(libraryPath))
    return std::move(error);
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return llvm::createStringError(std::string("cannot load ") +
                                   libraryPath.str() + ": " + dlerror());
  // Libraries from emitSharedLibrary name their platform: refuse one whose
  // code this host cannot execute rather than die at its first instruction.
  bool gpu = false;
  if (auto *target = static_cast<const char *>(
          dlsym(library, kLibraryTargetSymbol.data()))) {
    const TargetArch *platform = lookupTargetArch(target);
    gpu = platform && platform->kind == TargetKind::GPU;
    llvm::Error error =
        !platform ? llvm::createStringError(std::string("unknown platform '") +
                                            target + "'")
                  : checkCanRun(*platform);
    if (error) {
      dlclose(library);
      return llvm::createStringError(libraryPath.str() + ": " +
                                     llvm::toString(std::move(error)));
    }
  }
  void *function = dlsym(library, ("_mlir_ciface_" + entry).str().c_str());
  if (!function) {
    dlclose(library);
    return llvm::createStringError("no _mlir_ciface_" + entry.str() + " in " +
                                   libraryPath.str());
  }
  // The library's function must take and return the buffers the caller
  // passes: one built for another model would read and write out of bounds.
  std::string symbol = (kLibrarySignatureSymbolPrefix + entry).str();
  std::string expected = signature.str();
  std::optional<std::string> recorded;
  if (auto *text = static_cast<const char *>(dlsym(library, symbol.c_str())))
    recorded = text; // Copied: the text goes with the library.
  if (!recorded || *recorded != expected) {
    dlclose(library);
    if (!recorded)
      return llvm::createStringError(
          "'" + libraryPath.str() + "' records no signature of @" +
          entry.str() + " (no symbol " + symbol +
          "): it was not built by tcl-compile, which records it; rebuild it");
    return llvm::createStringError(
        "'" + libraryPath.str() + "' was compiled for a different function: @" +
        entry.str() + " there has the signature " + *recorded +
        ", but the caller expects " + expected);
  }
  Kernel kernel;
  kernel.signature = std::move(signature);
  kernel.function = function;
  kernel.library = library;
  kernel.gpu = gpu;
  return kernel;
}

void *Kernel::lookupGlobal(llvm::StringRef symbol) const {
  if (library)
    return dlsym(library, symbol.str().c_str());
  if (!engine)
    return nullptr;
  llvm::Expected<void *> address = engine->lookup(symbol);
  if (!address) {
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  return *address;
}

llvm::Expected<std::string> mlir::tcl::stripSchedules(llvm::StringRef text) {
  DialectRegistry registry;
  registerTclDialects(registry);
  MLIRContext context(registry);
  DiagnosticCollector diagnostics(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return llvm::createStringError("cannot parse the module: " +
                                   diagnostics.text);
  SmallVector<ScheduleOp> schedules;
  module->walk([&](ScheduleOp schedule) { schedules.push_back(schedule); });
  for (ScheduleOp schedule : schedules)
    schedule.erase();
  std::string result;
  llvm::raw_string_ostream os(result);
  module->print(os);
  return result;
}
