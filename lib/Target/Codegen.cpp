//===- Codegen.cpp - LLVM IR, objects and shared libraries ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Codegen.h"
#include "tcl/Support/Buffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
using namespace mlir::tcl;

void mlir::tcl::registerLLVMTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

llvm::StringRef mlir::tcl::getOpenMPRuntimeDir() {
  return "/usr/lib/llvm-19/lib";
}

llvm::StringRef mlir::tcl::getOpenMPRuntimeLibrary() {
  static const std::string path = (getOpenMPRuntimeDir() + "/libomp.so").str();
  return path;
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

llvm::Expected<std::unique_ptr<llvm::Module>>
mlir::tcl::translateAndOptimize(ModuleOp module, llvm::LLVMContext &llvmContext,
                                llvm::TargetMachine &machine) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setDataLayout(machine.createDataLayout());
  llvmModule->setTargetTriple(machine.getTargetTriple().getTriple());
  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, &machine);
  if (llvm::Error error = optimize(llvmModule.get()))
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

/// `module` translated and optimized for `target`, with the machine that
/// generates its code.
static llvm::Expected<std::pair<std::unique_ptr<llvm::TargetMachine>,
                                std::unique_ptr<llvm::Module>>>
translateFor(ModuleOp module, const TargetArch &target,
             llvm::LLVMContext &llvmContext) {
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  auto llvmModule = translateAndOptimize(module, llvmContext, **machine);
  if (!llvmModule)
    return llvmModule.takeError();
  return std::make_pair(std::move(*machine), std::move(*llvmModule));
}

llvm::Error mlir::tcl::emitObjectFile(ModuleOp module, const TargetArch &target,
                                      llvm::StringRef path) {
  llvm::LLVMContext llvmContext;
  auto translated = translateFor(module, target, llvmContext);
  if (!translated)
    return translated.takeError();
  return writeObjectFile(*translated->second, *translated->first, path);
}

llvm::Error mlir::tcl::emitLLVMIR(ModuleOp module, const TargetArch &target,
                                  llvm::raw_ostream &os) {
  llvm::LLVMContext llvmContext;
  auto translated = translateFor(module, target, llvmContext);
  if (!translated)
    return translated.takeError();
  translated->second->print(os, nullptr);
  return llvm::Error::success();
}

llvm::Error mlir::tcl::linkSharedLibrary(llvm::StringRef objectPath,
                                         llvm::StringRef libraryPath,
                                         bool usesOpenMP,
                                         llvm::ArrayRef<std::string> cSources) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("clang-19");
  if (!linker)
    linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return llvm::createStringError("no C compiler driver to link with "
                                   "(looked for clang-19 and cc)");
  std::string rpath = ("-Wl,-rpath," + getOpenMPRuntimeDir()).str();
  std::string libDir = ("-L" + getOpenMPRuntimeDir()).str();
  llvm::SmallVector<llvm::StringRef> args = {
      *linker, "-shared", "-fPIC", "-O2", "-o", libraryPath, objectPath};
  for (const std::string &source : cSources)
    args.push_back(source);
  args.push_back("-lm");
  if (usesOpenMP)
    llvm::append_range(args,
                       llvm::ArrayRef<llvm::StringRef>{libDir, rpath, "-lomp"});
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

llvm::Error
mlir::tcl::emitSharedLibrary(ModuleOp module, const TargetArch &platform,
                             bool usesOpenMP, llvm::StringRef libraryPath,
                             llvm::ArrayRef<FunctionSignature> signatures,
                             llvm::StringRef cApiSource) {
  llvm::LLVMContext llvmContext;
  auto translated = translateFor(module, platform, llvmContext);
  if (!translated)
    return translated.takeError();
  auto &[machine, llvmModule] = *translated;
  llvm::Constant *targetName =
      llvm::ConstantDataArray::getString(llvmContext, platform.name);
  new llvm::GlobalVariable(*llvmModule, targetName->getType(),
                           /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, targetName,
                           kLibraryTargetSymbol);
  for (const FunctionSignature &signature : signatures) {
    llvm::Constant *text =
        llvm::ConstantDataArray::getString(llvmContext, signature.signature);
    new llvm::GlobalVariable(
        *llvmModule, text->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, text,
        (kLibrarySignatureSymbolPrefix + signature.name).str());
  }
  llvm::SmallString<128> objectPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tcl", "o", objectPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeObject(objectPath);
  if (llvm::Error error = writeObjectFile(*llvmModule, *machine, objectPath))
    return error;
  std::vector<std::string> sources;
  llvm::SmallString<128> sourcePath;
  std::optional<llvm::FileRemover> removeSource;
  if (!cApiSource.empty()) {
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("tcl-api", "c", fd, sourcePath))
      return llvm::createStringError(ec, "cannot create a temporary file");
    removeSource.emplace(sourcePath);
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << cApiSource;
    out.close();
    sources.push_back(std::string(sourcePath));
  }
  if (llvm::Error error =
          linkSharedLibrary(objectPath, libraryPath, usesOpenMP, sources))
    return error;
  return appendLibraryHash(libraryPath);
}
