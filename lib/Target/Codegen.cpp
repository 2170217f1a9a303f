//===- Codegen.cpp - LLVM IR, objects and shared libraries ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Codegen.h"
#include "tcl/Support/Buffer.h"
#include "tcl/Target/GpuCodegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <optional>
#include <thread>

using namespace mlir;
using namespace mlir::tcl;

void mlir::tcl::registerLLVMTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  // Kernels (gpu-module-to-binary translates gpu.module to LLVM IR).
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  // How a gpu.binary and its launches become host code (the object embedded
  // as a constant, mgpu* runtime calls).
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

llvm::StringRef mlir::tcl::getOpenMPRuntimeDir() {
  return "/usr/lib/llvm-19/lib";
}

llvm::StringRef mlir::tcl::getOpenMPRuntimeLibrary() {
  static const std::string path = (getOpenMPRuntimeDir() + "/libomp.so").str();
  return path;
}

const TargetArch &mlir::tcl::getHostCodeArch(const TargetArch &platform) {
  if (platform.kind == TargetKind::CPU)
    return platform;
  // The host code of GPU kernels only launches them and copies buffers:
  // generic x86-64 code runs on the host of any GPU.
  return *lookupTargetArch("x86-sse42");
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::tcl::createTargetMachine(const TargetArch &platform) {
  if (platform.kind != TargetKind::CPU)
    return llvm::createStringError("platform '" + platform.name +
                                   "' is not a CPU platform");
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(platform.triple.str(), error);
  if (!target)
    return llvm::createStringError(error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      platform.triple, platform.cpu, platform.features, options,
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for " +
                                   platform.name);
  return machine;
}

/// A timer for one phase under `parent`, or none.
static TimingScope nestTimer(TimingScope *parent, llvm::StringRef name) {
  return parent ? parent->nest(name) : TimingScope();
}

/// `module` translated to LLVM IR for `machine`, not yet optimized.
static llvm::Expected<std::unique_ptr<llvm::Module>>
translate(ModuleOp module, llvm::LLVMContext &llvmContext,
          llvm::TargetMachine &machine) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setDataLayout(machine.createDataLayout());
  llvmModule->setTargetTriple(machine.getTargetTriple().getTriple());
  return llvmModule;
}

static llvm::Error optimize(llvm::Module &llvmModule,
                            llvm::TargetMachine &machine) {
  return makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                   &machine)(&llvmModule);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
mlir::tcl::translateAndOptimize(ModuleOp module, llvm::LLVMContext &llvmContext,
                                llvm::TargetMachine &machine) {
  auto llvmModule = translate(module, llvmContext, machine);
  if (!llvmModule)
    return llvmModule.takeError();
  if (llvm::Error error = optimize(**llvmModule, machine))
    return std::move(error);
  return llvmModule;
}

llvm::Error mlir::tcl::writeObjectFile(llvm::Module &llvmModule,
                                       llvm::TargetMachine &machine,
                                       llvm::StringRef path) {
  std::error_code ec;
  llvm::ToolOutputFile output(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot open " + path);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, output.os(), nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  passes.run(llvmModule);
  output.keep();
  return llvm::Error::success();
}

/// Gives the large constant arrays of `llvmModule` (a model's weights) the
/// type of a byte array with the same bytes and alignment, and returns them.
/// The assembler writes a float array one element at a time (a data layout
/// query, an APFloat and a streamer call each: seconds for a ResNet's 11M
/// weights), a byte array as one block. Uses address the global, not its type
/// (opaque pointers), so code does not change.
static std::vector<llvm::GlobalVariable *>
flattenLargeConstants(llvm::Module &llvmModule) {
  std::vector<llvm::GlobalVariable *> flattened;
  constexpr uint64_t kMinBytes = 4096;
  const llvm::DataLayout &layout = llvmModule.getDataLayout();
  // The bytes of an array of arrays of numbers (or zeros), in memory order;
  // false for anything else.
  std::function<bool(llvm::Constant *, std::string &)> appendBytes =
      [&](llvm::Constant *value, std::string &bytes) {
        if (isa<llvm::ConstantAggregateZero>(value)) {
          bytes.append(layout.getTypeAllocSize(value->getType()), '\0');
          return true;
        }
        if (auto *data = dyn_cast<llvm::ConstantDataArray>(value)) {
          bytes.append(data->getRawDataValues());
          return true;
        }
        auto *array = dyn_cast<llvm::ConstantArray>(value);
        if (!array)
          return false;
        for (llvm::Use &element : array->operands())
          if (!appendBytes(cast<llvm::Constant>(element.get()), bytes))
            return false;
        return true;
      };
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(llvmModule.globals())) {
    if (!global.isConstant() || !global.hasInitializer() ||
        !global.getValueType()->isArrayTy() ||
        global.getValueType()->getArrayElementType()->isIntegerTy(8) ||
        layout.getTypeAllocSize(global.getValueType()) < kMinBytes)
      continue;
    std::string bytes;
    if (!appendBytes(global.getInitializer(), bytes) ||
        bytes.size() != layout.getTypeAllocSize(global.getValueType()))
      continue;
    llvm::Constant *flat = llvm::ConstantDataArray::getRaw(
        bytes, bytes.size(), llvm::Type::getInt8Ty(llvmModule.getContext()));
    auto *replacement = new llvm::GlobalVariable(
        llvmModule, flat->getType(), /*isConstant=*/true, global.getLinkage(),
        flat, "", &global, global.getThreadLocalMode(),
        global.getAddressSpace());
    replacement->copyAttributesFrom(&global);
    replacement->setAlignment(layout.getPreferredAlign(&global));
    replacement->takeName(&global);
    global.replaceAllUsesWith(replacement);
    global.eraseFromParent();
    flattened.push_back(replacement);
  }
  return flattened;
}

/// Moves the definitions of `constants` (globals of `llvmModule`) into a
/// module of their own, leaving declarations in their place: the data that
/// code generation only copies stays out of the module that is split and
/// serialized for the threads.
static std::unique_ptr<llvm::Module>
moveConstants(llvm::Module &llvmModule,
              llvm::ArrayRef<llvm::GlobalVariable *> constants) {
  auto data =
      std::make_unique<llvm::Module>("tcl.data", llvmModule.getContext());
  data->setDataLayout(llvmModule.getDataLayout());
  data->setTargetTriple(llvmModule.getTargetTriple());
  for (auto [index, global] : llvm::enumerate(constants)) {
    std::string name = global->hasName() ? global->getName().str()
                                         : "tcl.data." + std::to_string(index);
    global->setName("");
    auto *declaration = new llvm::GlobalVariable(
        llvmModule, global->getValueType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, nullptr, name);
    declaration->setAlignment(global->getAlign());
    declaration->setVisibility(llvm::GlobalValue::HiddenVisibility);
    global->replaceAllUsesWith(declaration);
    global->removeFromParent();
    data->insertGlobalVariable(global);
    global->setName(name);
    global->setLinkage(llvm::GlobalValue::ExternalLinkage);
    global->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  return data;
}

/// Optimizes and generates code for `llvmModule` on one thread per path of
/// `objectPaths`: the module is split by function, and each share goes, as
/// bitcode, to a thread with an LLVM context and target machine of its own
/// (neither is thread-safe).
static llvm::Error compileInParallel(llvm::Module &llvmModule,
                                     const TargetArch &target,
                                     llvm::ArrayRef<std::string> objectPaths) {
  std::vector<llvm::SmallVector<char, 0>> shares;
  llvm::SplitModule(
      llvmModule, objectPaths.size(),
      [&](std::unique_ptr<llvm::Module> share) {
        llvm::raw_svector_ostream os(shares.emplace_back());
        llvm::WriteBitcodeToFile(*share, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  std::vector<std::string> failures(shares.size());
  auto compileShare = [&](size_t index) {
    llvm::LLVMContext context;
    auto share = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(
            llvm::StringRef(shares[index].data(), shares[index].size()),
            "share"),
        context);
    if (!share) {
      failures[index] = llvm::toString(share.takeError());
      return;
    }
    auto machine = createTargetMachine(getHostCodeArch(target));
    if (!machine) {
      failures[index] = llvm::toString(machine.takeError());
      return;
    }
    if (llvm::Error error = optimize(**share, **machine))
      failures[index] = llvm::toString(std::move(error));
    else if (llvm::Error error =
                 writeObjectFile(**share, **machine, objectPaths[index]))
      failures[index] = llvm::toString(std::move(error));
  };
  std::vector<std::thread> workers;
  for (size_t index = 1; index < shares.size(); ++index)
    workers.emplace_back(compileShare, index);
  compileShare(0);
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &failure : failures)
    if (!failure.empty())
      return llvm::createStringError(failure);
  return llvm::Error::success();
}

/// `module` translated and optimized for `target`, with the machine that
/// generates its code.
static llvm::Expected<std::pair<std::unique_ptr<llvm::TargetMachine>,
                                std::unique_ptr<llvm::Module>>>
translateFor(ModuleOp module, const TargetArch &target,
             llvm::LLVMContext &llvmContext, TimingScope *timing) {
  auto machine = createTargetMachine(getHostCodeArch(target));
  if (!machine)
    return machine.takeError();
  TimingScope translating = nestTimer(timing, "translate to LLVM IR");
  auto llvmModule = translate(module, llvmContext, **machine);
  if (!llvmModule)
    return llvmModule.takeError();
  translating.stop();
  TimingScope optimizing = nestTimer(timing, "LLVM -O3");
  if (llvm::Error error = optimize(**llvmModule, **machine))
    return std::move(error);
  return std::make_pair(std::move(*machine), std::move(*llvmModule));
}

llvm::Error mlir::tcl::emitObjectFile(ModuleOp module, const TargetArch &target,
                                      llvm::StringRef path,
                                      const CodegenOptions &options) {
  llvm::LLVMContext llvmContext;
  auto translated = translateFor(module, target, llvmContext, options.timing);
  if (!translated)
    return translated.takeError();
  flattenLargeConstants(*translated->second);
  TimingScope generating = nestTimer(options.timing, "code generation");
  return writeObjectFile(*translated->second, *translated->first, path);
}

llvm::Error mlir::tcl::emitLLVMIR(ModuleOp module, const TargetArch &target,
                                  llvm::raw_ostream &os) {
  llvm::LLVMContext llvmContext;
  auto translated = translateFor(module, target, llvmContext, nullptr);
  if (!translated)
    return translated.takeError();
  translated->second->print(os, nullptr);
  return llvm::Error::success();
}

llvm::Error
mlir::tcl::linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
                             llvm::StringRef libraryPath, bool usesOpenMP,
                             llvm::ArrayRef<std::string> cSources,
                             bool usesCudaRuntime) {
  std::string cudaRuntimeDir;
  if (usesCudaRuntime) {
    llvm::Expected<std::string> dir = findCudaRuntimeDir();
    if (!dir)
      return dir.takeError();
    cudaRuntimeDir = *dir;
  }
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("clang-19");
  if (!linker)
    linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return llvm::createStringError("no C compiler driver to link with "
                                   "(looked for clang-19 and cc)");
  std::string rpath = ("-Wl,-rpath," + getOpenMPRuntimeDir()).str();
  std::string libDir = ("-L" + getOpenMPRuntimeDir()).str();
  llvm::SmallVector<llvm::StringRef> args = {*linker, "-shared", "-fPIC",
                                             "-O2",   "-o",      libraryPath};
  for (const std::string &object : objectPaths)
    args.push_back(object);
  for (const std::string &source : cSources)
    args.push_back(source);
  args.push_back("-lm");
  if (usesOpenMP)
    llvm::append_range(args,
                       llvm::ArrayRef<llvm::StringRef>{libDir, rpath, "-lomp"});
  // The GPU runtime from beside the library first (a model copied with it
  // to another machine), else from where tcl has it.
  std::string cudaLibDir = "-L" + cudaRuntimeDir;
  std::string cudaRpath = "-Wl,-rpath,$ORIGIN:" + cudaRuntimeDir;
  if (usesCudaRuntime)
    llvm::append_range(args, llvm::ArrayRef<llvm::StringRef>{
                                 cudaLibDir, cudaRpath, "-ltcl_cuda_runtime"});
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return llvm::createStringError("linking " + libraryPath + " failed" +
                                   (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
}

std::string mlir::tcl::formatSignatureTensor(llvm::StringRef elementType,
                                             llvm::ArrayRef<int64_t> shape,
                                             llvm::StringRef name) {
  std::string text =
      (name.empty() ? "" : name + ":").str() + elementType.str() + "[";
  for (auto [index, size] : llvm::enumerate(shape)) {
    if (index != 0)
      text += "x";
    text += ShapedType::isDynamic(size) ? "?" : std::to_string(size);
  }
  return text + "]";
}

std::string
mlir::tcl::formatKernelSignature(llvm::ArrayRef<std::string> inputs,
                                 llvm::ArrayRef<std::string> outputs) {
  return llvm::join(inputs, ",") + "->" + llvm::join(outputs, ",");
}

/// `type`, with its argument or result `attributes` (which may be null:
/// `tcl.name` and `tcl.element_type`), as formatSignatureTensor writes it,
/// if it is a ranked tensor; else as MLIR prints it.
static std::string formatSignatureType(Type type, DictionaryAttr attributes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    type.print(os);
    return text;
  }
  auto name =
      attributes ? attributes.getAs<StringAttr>("tcl.name") : StringAttr();
  std::optional<ElementType> element = getBoundaryElementType(
      tensor.getElementType(),
      attributes ? attributes.get(kElementTypeAttrName) : Attribute());
  if (element)
    text = getElementTypeName(*element);
  else
    tensor.getElementType().print(os);
  return formatSignatureTensor(text, tensor.getShape(),
                               name ? name.getValue() : "");
}

//===----------------------------------------------------------------------===//
// Content hash
//===----------------------------------------------------------------------===//

static constexpr uint64_t kHashPrime = 0x100000001b3ull;
static constexpr uint64_t kHashBasis = 0xcbf29ce484222325ull;

uint64_t mlir::tcl::hashLibraryContents(llvm::ArrayRef<uint8_t> bytes) {
  uint64_t hash = kHashBasis ^ bytes.size();
  size_t words = bytes.size() / 8;
  for (size_t i = 0; i < words; ++i)
    hash = (hash ^ llvm::support::endian::read64le(bytes.data() + 8 * i)) *
           kHashPrime;
  for (size_t i = 8 * words; i < bytes.size(); ++i)
    hash = (hash ^ bytes[i]) * kHashPrime;
  return hash ^ (hash >> 32);
}

llvm::StringRef mlir::tcl::getLibraryHashCSource() {
  // Must compute what hashLibraryContents computes (a unit test compares
  // them through a compiled model).
  return R"(static uint64_t tcl_hash_contents(const unsigned char *bytes,
                                  uint64_t size) {
  uint64_t hash = 0xcbf29ce484222325ull ^ size, i, words = size / 8;
  for (i = 0; i < words; ++i) {
    uint64_t word = 0;
    int b;
    for (b = 7; b >= 0; --b)
      word = (word << 8) | bytes[8 * i + b];
    hash = (hash ^ word) * 0x100000001b3ull;
  }
  for (i = 8 * words; i < size; ++i)
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash ^ (hash >> 32);
}
)";
}

llvm::Error mlir::tcl::checkLibraryHash(llvm::StringRef path,
                                        llvm::ArrayRef<uint8_t> contents) {
  size_t size = contents.size();
  if (size < kLibraryTrailerSize ||
      llvm::StringRef(reinterpret_cast<const char *>(contents.data()) + size -
                          kLibraryHashMagic.size(),
                      kLibraryHashMagic.size()) != kLibraryHashMagic)
    return llvm::createStringError(
        "'" + path +
        "' has no content hash: it was not built by this version of "
        "tcl-compile, or its end was cut off; rebuild it");
  llvm::ArrayRef<uint8_t> body = contents.drop_back(kLibraryTrailerSize);
  uint64_t recorded =
      llvm::support::endian::read64le(contents.data() + body.size());
  if (hashLibraryContents(body) != recorded)
    return llvm::createStringError(
        "'" + path +
        "' is damaged: its content does not match the hash it was built "
        "with; rebuild it");
  return llvm::Error::success();
}

/// Appends the content-hash trailer to the library at `path`.
static llvm::Error appendLibraryHash(llvm::StringRef path) {
  auto contents = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!contents)
    return llvm::createStringError(contents.getError(), "cannot read " + path);
  uint64_t hash = hashLibraryContents(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>((*contents)->getBufferStart()),
      (*contents)->getBufferSize()));
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return llvm::createStringError(ec, "cannot append to " + path);
  char word[8];
  llvm::support::endian::write64le(word, hash);
  out.write(word, sizeof(word));
  out << kLibraryHashMagic;
  out.close();
  if (out.has_error())
    return llvm::createStringError(out.error(), "cannot write " + path);
  return llvm::Error::success();
}

std::vector<FunctionSignature>
mlir::tcl::getFunctionSignatures(ModuleOp module) {
  std::vector<FunctionSignature> signatures;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || !function.isPublic())
      continue;
    std::vector<std::string> inputs, outputs;
    for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
      inputs.push_back(
          formatSignatureType(type, function.getArgAttrDict(index)));
    for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
      outputs.push_back(
          formatSignatureType(type, function.getResultAttrDict(index)));
    signatures.push_back(
        {function.getSymName().str(), formatKernelSignature(inputs, outputs)});
  }
  return signatures;
}

namespace {
/// Temporary files that are removed, with their directory, when this goes
/// out of scope. They lie in a unique directory under names of their own
/// (`<prefix>-<n>.<suffix>`) rather than under random names: the C
/// compiler writes a source's name into the library's symbol table, and a
/// random one made every build of the same input a different file.
struct TemporaryFiles {
  ~TemporaryFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
    if (!directory.empty())
      llvm::sys::fs::remove(directory);
  }
  llvm::Expected<std::string> create(llvm::StringRef prefix,
                                     llvm::StringRef suffix) {
    if (directory.empty())
      if (std::error_code ec =
              llvm::sys::fs::createUniqueDirectory("tcl", directory))
        return llvm::createStringError(ec,
                                       "cannot create a temporary directory");
    llvm::SmallString<128> file(directory);
    llvm::sys::path::append(file, prefix + "-" + llvm::Twine(paths.size()) +
                                      "." + suffix);
    return paths.emplace_back(file);
  }
  llvm::SmallString<128> directory;
  std::vector<std::string> paths;
};
} // namespace

extern "C" {
void *_mlir_memref_to_llvm_alloc(size_t size);
void _mlir_memref_to_llvm_free(void *pointer);
}

llvm::StringRef mlir::tcl::getTemporaryCacheSource() {
  return
#include "TemporaryCacheSource.inc"
      ;
}

llvm::ArrayRef<std::pair<llvm::StringRef, void *>>
mlir::tcl::getTemporaryAllocationSymbols() {
  static const std::pair<llvm::StringRef, void *> symbols[] = {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)}};
  return symbols;
}

llvm::Error mlir::tcl::emitSharedLibrary(
    ModuleOp module, const TargetArch &platform, bool usesOpenMP,
    llvm::StringRef libraryPath, llvm::ArrayRef<FunctionSignature> signatures,
    llvm::StringRef cApiSource, const CodegenOptions &options) {
  auto machine = createTargetMachine(getHostCodeArch(platform));
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext llvmContext;
  TimingScope translating = nestTimer(options.timing, "translate to LLVM IR");
  auto translated = translate(module, llvmContext, **machine);
  if (!translated)
    return translated.takeError();
  llvm::Module &llvmModule = **translated;
  llvm::Constant *targetName =
      llvm::ConstantDataArray::getString(llvmContext, platform.name);
  new llvm::GlobalVariable(llvmModule, targetName->getType(),
                           /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, targetName,
                           kLibraryTargetSymbol);
  for (const FunctionSignature &signature : signatures) {
    llvm::Constant *text =
        llvm::ConstantDataArray::getString(llvmContext, signature.signature);
    new llvm::GlobalVariable(
        llvmModule, text->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, text,
        (kLibrarySignatureSymbolPrefix + signature.name).str());
  }
  std::vector<llvm::GlobalVariable *> constants =
      flattenLargeConstants(llvmModule);
  translating.stop();

  unsigned threads =
      options.threads
          ? options.threads
          : llvm::heavyweight_hardware_concurrency().compute_thread_count();
  unsigned functions = llvm::count_if(
      llvmModule, [](llvm::Function &f) { return !f.isDeclaration(); });
  threads = std::max(1u, std::min(threads, functions));
  TemporaryFiles temporaries;
  std::vector<std::string> objectPaths;
  for (unsigned index = 0; index < threads; ++index) {
    auto path = temporaries.create("tcl", "o");
    if (!path)
      return path.takeError();
    objectPaths.push_back(*path);
  }
  if (threads == 1) {
    TimingScope optimizing = nestTimer(options.timing, "LLVM -O3");
    if (llvm::Error error = optimize(llvmModule, **machine))
      return error;
    optimizing.stop();
    TimingScope generating = nestTimer(options.timing, "code generation");
    if (llvm::Error error =
            writeObjectFile(llvmModule, **machine, objectPaths.front()))
      return error;
  } else {
    TimingScope compiling =
        nestTimer(options.timing, "LLVM -O3 and code generation (" +
                                      std::to_string(threads) + " threads)");
    auto dataPath = temporaries.create("tcl-data", "o");
    if (!dataPath)
      return dataPath.takeError();
    std::unique_ptr<llvm::Module> data = moveConstants(llvmModule, constants);
    if (llvm::Error error = writeObjectFile(*data, **machine, *dataPath))
      return error;
    objectPaths.push_back(*dataPath);
    if (llvm::Error error = compileInParallel(
            llvmModule, platform, llvm::ArrayRef(objectPaths).drop_back()))
      return error;
  }

  // The C API (which defines _GNU_SOURCE before its includes) and the
  // temporary cache as one translation unit: each file costs the C
  // compiler's start-up, a tenth of a second.
  std::vector<std::string> sources;
  auto path = temporaries.create("tcl-api", "c");
  if (!path)
    return path.takeError();
  std::error_code ec;
  llvm::raw_fd_ostream out(*path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write " + *path);
  out << cApiSource << "\n" << getTemporaryCacheSource();
  out.close();
  sources.push_back(*path);
  TimingScope linking = nestTimer(options.timing, "link");
  if (llvm::Error error =
          linkSharedLibrary(objectPaths, libraryPath, usesOpenMP, sources,
                            platform.kind == TargetKind::GPU))
    return error;
  return appendLibraryHash(libraryPath);
}
