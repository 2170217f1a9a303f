//===- ModelInterface.cpp - The C API of a compiled model -----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/ModelInterface.h"
#include "tcl/Support/Buffer.h"
#include "tcl/Target/Codegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tcl;

llvm::Expected<ModelInterface>
ModelInterface::fromFunction(ModuleOp module, llvm::StringRef entry,
                             const Platform &platform) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return llvm::createStringError("no function @" + entry.str() +
                                   " for the model's C API");
  ModelInterface iface;
  iface.entry = entry.str();
  iface.platform = platform;
  // attributesOf(i) is the i-th argument's or result's attributes.
  auto collect = [&](TypeRange types, auto attributesOf, const char *prefix,
                     std::vector<ModelTensor> &out) -> llvm::Error {
    for (auto [index, type] : llvm::enumerate(types)) {
      DictionaryAttr attributes = attributesOf(index);
      auto tensor = dyn_cast<RankedTensorType>(type);
      std::optional<ElementType> element =
          tensor ? getBoundaryElementType(
                       tensor.getElementType(),
                       attributes ? attributes.get(kElementTypeAttrName)
                                  : Attribute())
                 : std::nullopt;
      if (!tensor || !tensor.hasStaticShape() || !element)
        return llvm::createStringError(
            std::string("the model's C API needs static tensors of f32, "
                        "i64, i32, i8, u8 or bool; ") +
            prefix + std::to_string(index) + " is not one");
      auto name =
          attributes ? attributes.getAs<StringAttr>("tcl.name") : StringAttr();
      out.push_back({name ? name.str() : prefix + std::to_string(index),
                     std::vector<int64_t>(tensor.getShape().begin(),
                                          tensor.getShape().end()),
                     *element});
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = collect(
          func.getArgumentTypes(),
          [&](unsigned i) { return func.getArgAttrDict(i); }, "input_",
          iface.inputs))
    return std::move(error);
  if (llvm::Error error = collect(
          func.getResultTypes(),
          [&](unsigned i) { return func.getResultAttrDict(i); }, "output_",
          iface.outputs))
    return std::move(error);
  return iface;
}

std::string ModelInterface::getHeader() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << R"(/* The C API of a model compiled by tcl-compile. Buffers are dense
   row-major arrays owned by the caller, of each tensor's element type
   (tcl_model_input_type); weights are in the library. */
#ifndef TCL_MODEL_H
#define TCL_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tcl_model tcl_model;

/* Element types, with ONNX's TensorProto.DataType codes: TCL_FLOAT is C's
   float, TCL_UINT8 uint8_t, TCL_INT8 int8_t, TCL_INT32 int32_t, TCL_INT64
   int64_t, TCL_BOOL one byte holding 0 or 1. */
enum {
  TCL_FLOAT = 1,
  TCL_UINT8 = 2,
  TCL_INT8 = 3,
  TCL_INT32 = 6,
  TCL_INT64 = 7,
  TCL_BOOL = 9
};

/* Returns NULL, and tcl_model_error() says why, if this CPU lacks the
   instructions of the platform the model was compiled for
   (tcl_model_target), if the library file is damaged (its content does not
   match the hash tcl-compile recorded), if out of memory, or, for a GPU
   platform, if there is no CUDA device. */
tcl_model *tcl_model_create(void);
/* Why the calling thread's last tcl_model_create, or GPU run, failed (""
   if it did not). */
const char *tcl_model_error(void);
/* inputs[i] and outputs[i] point to the i-th tensor, an array of its
   element type (host memory, also for a GPU platform: the model copies to
   and from the device); returns 0 on success. */
int tcl_model_run(tcl_model *model, const void *const *inputs,
                  void *const *outputs);
void tcl_model_destroy(tcl_model *model);

int tcl_model_num_inputs(void);
int tcl_model_num_outputs(void);
const char *tcl_model_input_name(int index);
const char *tcl_model_output_name(int index);
/* TCL_FLOAT, TCL_INT64, ...; 0 for an index out of range. */
int tcl_model_input_type(int index);
int tcl_model_output_type(int index);
int tcl_model_input_rank(int index);
int tcl_model_output_rank(int index);
const int64_t *tcl_model_input_shape(int index);
const int64_t *tcl_model_output_shape(int index);
/* Threads the model's parallel loops run on (fixed when compiled). */
int tcl_model_num_threads(void);
/* The platform the model was compiled for, e.g. "x86-avx2". */
const char *tcl_model_target(void);

#ifdef __cplusplus
}
#endif

#endif
)";
  return text;
}

/// A C string literal.
static std::string quote(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string ModelInterface::getSource() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by tcl-compile: the C API over _mlir_ciface_" << entry
     << ". */\n#define _GNU_SOURCE\n#include <dlfcn.h>\n#include "
        "<stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include "
        "<string.h>\n\n"
     << "typedef struct tcl_model tcl_model;\n"
     << "struct tcl_model { int unused; };\n\n"
     << "static __thread const char *tcl_error = \"\";\n"
     << "const char *tcl_model_error(void) { return tcl_error; }\n\n";
  // The library checks its own bytes against the hash emitSharedLibrary
  // appended: damaged weights would compute wrong results silently.
  os << getLibraryHashCSource() << "\n";
  os << R"(tcl_model *tcl_model_create(void);
static const char *tcl_check_library(void) {
  Dl_info info;
  FILE *file;
  long size;
  unsigned char *bytes;
  const char *problem = 0;
  if (!dladdr((void *)&tcl_model_create, &info) || !info.dli_fname)
    return "cannot find the model's library file";
  file = fopen(info.dli_fname, "rb");
  if (!file)
    return "cannot open the model's library file";
  if (fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 ||
      fseek(file, 0, SEEK_SET) != 0) {
    fclose(file);
    return "cannot read the model's library file";
  }
  bytes = (unsigned char *)malloc(size ? size : 1);
  if (!bytes) {
    fclose(file);
    return "out of memory";
  }
  if (fread(bytes, 1, size, file) != (size_t)size) {
    problem = "cannot read the model's library file";
  } else if (size < )"
     << kLibraryTrailerSize << R"( ||
             memcmp(bytes + size - 8, )"
     << quote(kLibraryHashMagic) << R"(, 8) != 0) {
    problem = "the model's library has no content hash: its end may have "
              "been cut off";
  } else {
    uint64_t recorded = 0;
    int b;
    for (b = 7; b >= 0; --b)
      recorded = (recorded << 8) | bytes[size - )"
     << kLibraryTrailerSize << R"( + b];
    if (tcl_hash_contents(bytes, size - )"
     << kLibraryTrailerSize << R"() != recorded)
      problem = "the model's library is damaged: its content does not match "
                "the hash it was built with";
  }
  free(bytes);
  fclose(file);
  return problem;
}
)";
  auto tables = [&](const std::vector<ModelTensor> &tensors, const char *kind) {
    os << "static const char *const " << kind << "_names[] = {";
    for (const ModelTensor &t : tensors)
      os << quote(t.name) << ", ";
    os << "0};\nstatic const int " << kind << "_ranks[] = {";
    for (const ModelTensor &t : tensors)
      os << t.shape.size() << ", ";
    os << "0};\nstatic const int " << kind << "_types[] = {";
    for (const ModelTensor &t : tensors)
      os << getOnnxElementType(t.type) << ", ";
    os << "0};\n";
    for (size_t i = 0; i < tensors.size(); ++i) {
      os << "static const int64_t " << kind << "_shape_" << i << "[] = {";
      for (int64_t d : tensors[i].shape)
        os << d << ", ";
      os << "0};\n";
    }
    os << "static const int64_t *const " << kind << "_shapes[] = {";
    for (size_t i = 0; i < tensors.size(); ++i)
      os << kind << "_shape_" << i << ", ";
    os << "0};\n";
  };
  tables(inputs, "input");
  tables(outputs, "output");

  size_t numArgs = inputs.size() + outputs.size();
  if (platform.getTarget().kind == TargetKind::GPU)
    os << "\n/* tcl's CUDA runtime (libtcl_cuda_runtime.so). */\n"
          "extern const char *tclCudaDeviceError(void);\n"
          "extern const char *tclCudaPeekError(void);\n"
          "extern const char *tclCudaTakeError(void);\n";
  os << "\nextern void _mlir_ciface_" << entry << "(";
  for (size_t i = 0; i < numArgs; ++i)
    os << (i ? ", " : "") << "void *";
  os << ");\n\n";

  // One descriptor type per rank used.
  auto descriptorType = [](size_t rank) {
    return "struct descriptor_" + std::to_string(rank);
  };
  std::vector<bool> ranks(64, false);
  for (const auto *list : {&inputs, &outputs})
    for (const ModelTensor &t : *list)
      ranks[t.shape.size()] = true;
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    if (!ranks[rank])
      continue;
    os << descriptorType(rank) << " {\n  void *allocated;\n  void *aligned;\n"
       << "  int64_t offset;\n";
    if (rank)
      os << "  int64_t sizes[" << rank << "];\n  int64_t strides[" << rank
         << "];\n";
    os << "};\n";
  }
  // Running the kernels on a CPU without the platform's instructions would
  // die of SIGILL at the first one: tcl_model_create checks first.
  os << "\ntcl_model *tcl_model_create(void) {\n";
  IsaLevel isa = platform.getTarget().isa;
  llvm::ArrayRef<llvm::StringRef> features = getRequiredCpuFeatures(isa);
  if (!features.empty()) {
    os << "  __builtin_cpu_init();\n  if (";
    for (auto [index, feature] : llvm::enumerate(features))
      os << (index ? " ||\n      " : "") << "!__builtin_cpu_supports("
         << quote(feature) << ")";
    os << ") {\n    tcl_error = "
       << quote("this CPU lacks instructions of " +
                platform.getTargetName().str() +
                ", the platform the model was compiled for")
       << ";\n    return 0;\n  }\n";
  }
  // As tcl's tools do (hostSupports), TCL_HOST_ISA naming a lesser platform
  // makes the CPU count as one without this platform's features.
  llvm::SmallVector<std::string> lesser;
  for (const TargetArch &other : getTargetArchs())
    if (other.kind == TargetKind::CPU && other.isa < isa)
      lesser.push_back("!strcmp(limit, " + quote(other.name) + ")");
  if (!lesser.empty())
    os << "  const char *limit = getenv(\"TCL_HOST_ISA\");\n  if (limit && ("
       << llvm::join(lesser, " || ") << ")) {\n    tcl_error = "
       << quote("TCL_HOST_ISA limits this CPU to a platform below " +
                platform.getTargetName().str() +
                ", the platform the model was compiled for")
       << ";\n    return 0;\n  }\n";
  // A GPU model needs a CUDA device: tcl's runtime says why not.
  bool gpu = platform.getTarget().kind == TargetKind::GPU;
  if (gpu)
    os << "  if (tclCudaDeviceError()[0]) {\n    tcl_error = "
          "tclCudaDeviceError();\n    return 0;\n  }\n";
  os << R"(  tcl_model *model;
  const char *problem = tcl_check_library();
  if (problem) {
    tcl_error = problem;
    return 0;
  }
  model = (tcl_model *)calloc(1, sizeof(tcl_model));
  tcl_error = model ? "" : "out of memory";
  return model;
}
void tcl_model_destroy(tcl_model *model) { free(model); }

int tcl_model_run(tcl_model *model, const void *const *inputs,
                  void *const *outputs) {
  if (!model || !inputs || !outputs)
    return 1;
)";
  auto fill = [&](const ModelTensor &t, const std::string &var,
                  const std::string &data) {
    size_t rank = t.shape.size();
    os << "  " << descriptorType(rank) << " " << var << ";\n"
       << "  if (!" << data << ")\n    return 1;\n"
       << "  " << var << ".allocated = " << var << ".aligned = (void *)" << data
       << ";\n  " << var << ".offset = 0;\n";
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      os << "  " << var << ".sizes[" << d << "] = " << t.shape[d] << ";\n  "
         << var << ".strides[" << d << "] = " << stride << ";\n";
      stride *= t.shape[d];
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    fill(inputs[i], "in" + std::to_string(i),
         "inputs[" + std::to_string(i) + "]");
  for (size_t i = 0; i < outputs.size(); ++i)
    fill(outputs[i], "out" + std::to_string(i),
         "outputs[" + std::to_string(i) + "]");
  os << "  _mlir_ciface_" << entry << "(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << "&in" << i;
  for (size_t i = 0; i < outputs.size(); ++i)
    os << (inputs.size() + i ? ", " : "") << "&out" << i;
  os << ");\n";
  // The GPU runtime does not abort: a failed launch or copy is reported
  // here (and through tcl_model_error).
  if (gpu)
    os << "  if (tclCudaPeekError()[0]) {\n    tcl_error = "
          "tclCudaTakeError();\n    return 1;\n  }\n";
  os << "  return 0;\n}\n\n";
  os << "int tcl_model_num_inputs(void) { return " << inputs.size() << "; }\n"
     << "int tcl_model_num_outputs(void) { return " << outputs.size()
     << "; }\n";
  for (const char *kind : {"input", "output"}) {
    size_t count =
        std::string(kind) == "input" ? inputs.size() : outputs.size();
    os << "const char *tcl_model_" << kind
       << "_name(int i) { return i >= 0 && i < " << count << " ? " << kind
       << "_names[i] : 0; }\n"
       << "int tcl_model_" << kind << "_rank(int i) { return i >= 0 && i < "
       << count << " ? " << kind << "_ranks[i] : -1; }\n"
       << "int tcl_model_" << kind << "_type(int i) { return i >= 0 && i < "
       << count << " ? " << kind << "_types[i] : 0; }\n"
       << "const int64_t *tcl_model_" << kind
       << "_shape(int i) { return i >= 0 && i < " << count << " ? " << kind
       << "_shapes[i] : 0; }\n";
  }
  os << "int tcl_model_num_threads(void) { return " << platform.getThreads()
     << "; }\n";
  os << "const char *tcl_model_target(void) { return "
     << quote(platform.getTargetName()) << "; }\n";
  return text;
}
