//===- Checkpoint.cpp - Saving and loading learned cost models ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The checkpoint file of a model: writing it, and reading it back with
// every check a truncated, corrupted or mismatched file has to fail.
//
//===----------------------------------------------------------------------===//

#include "ModelImpl.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>

using namespace mlir::tcl::learned;

namespace {

/// FNV-1a over the saved weights, to reject corrupted files.
uint64_t checksum(llvm::StringRef bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

constexpr llvm::StringLiteral kMagic = "tcl-learned-ranking-model 1";

/// The config fields in file order, by name.
struct ConfigField {
  const char *name;
  unsigned ModelConfig::*field;
};
constexpr ConfigField kConfigFields[] = {
    {"rows", &ModelConfig::rows},
    {"width", &ModelConfig::width},
    {"d_model", &ModelConfig::dModel},
    {"d_state", &ModelConfig::dState},
    {"d_conv", &ModelConfig::dConv},
    {"expand", &ModelConfig::expand},
    {"dt_rank", &ModelConfig::dtRank},
    {"layers", &ModelConfig::layers},
    {"heads", &ModelConfig::heads},
    {"ffn", &ModelConfig::ffn},
    {"mlp_hidden", &ModelConfig::mlpHidden},
    {"mlp_blocks", &ModelConfig::mlpBlocks},
};

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace

// Format: a text header, one "key value..." per line, then the line
// "data <float count> <checksum>" and the floats (little endian): the mean
// and standard deviation of each column, then every parameter in the order
// of the header's "param <name> <dims...>" lines (the network's own order).

llvm::Error ModelImpl::save(llvm::StringRef path) const {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << kMagic << "\n";
  os << "kind " << getModelKindName(config.kind) << "\n";
  os << "seed " << config.seed << "\n";
  if (!config.inputs.empty())
    os << "inputs " << config.inputs << "\n";
  if (!config.platforms.empty())
    os << "platforms " << llvm::join(config.platforms, ",") << "\n";
  for (const ConfigField &f : kConfigFields)
    os << f.name << " " << config.*f.field << "\n";
  os << "normalized " << (normalized ? 1 : 0) << "\n";

  std::string payload;
  auto putFloats = [&](const float *values, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      char bytes[4];
      llvm::support::endian::write32le(bytes,
                                       llvm::bit_cast<uint32_t>(values[i]));
      payload.append(bytes, 4);
    }
  };
  std::vector<float> zeros(config.width, 0.0f), ones(config.width, 1.0f);
  putFloats(normalized ? mean.data() : zeros.data(), config.width);
  putFloats(normalized ? stddev.data() : ones.data(), config.width);
  for (const auto &item : net->named_parameters()) {
    torch::Tensor value = item.value().detach().contiguous();
    os << "param " << item.key();
    for (int64_t dim : value.sizes())
      os << " " << dim;
    os << "\n";
    putFloats(value.data_ptr<float>(), value.numel());
  }
  os << "data " << payload.size() / 4 << " "
     << llvm::utohexstr(checksum(payload)) << "\n";
  os.flush();

  // writeToOutput writes a temporary file and renames it, so a crash never
  // leaves a half-written model under `path`.
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &out) {
    out << header << payload;
    return llvm::Error::success();
  });
}

llvm::Expected<std::unique_ptr<ModelImpl>>
ModelImpl::load(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return makeError("cannot load cost model '" + path + "': " + why);
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(buffer.getError().message());
  llvm::StringRef rest = (*buffer)->getBuffer();

  auto nextLine = [&]() -> std::optional<llvm::StringRef> {
    size_t end = rest.find('\n');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef line = rest.take_front(end);
    rest = rest.drop_front(end + 1);
    return line;
  };
  std::optional<llvm::StringRef> line = nextLine();
  if (!line || *line != kMagic)
    return fail("not a tcl learned cost model (bad header)");

  ModelConfig config;
  bool haveKind = false, normalized = false;
  std::vector<std::pair<std::string, std::vector<int64_t>>> params;
  size_t numFloats = 0;
  uint64_t expectedSum = 0;
  while (true) {
    line = nextLine();
    if (!line)
      return fail("header ends before the data");
    llvm::SmallVector<llvm::StringRef> words;
    line->split(words, ' ', -1, /*KeepEmpty=*/false);
    if (words.empty())
      return fail("empty header line");
    llvm::StringRef key = words[0];
    auto number = [&](size_t i, uint64_t &value) {
      return i < words.size() && !words[i].getAsInteger(10, value);
    };
    uint64_t value = 0;
    if (key == "kind") {
      std::optional<ModelKind> kind =
          words.size() == 2 ? parseModelKind(words[1]) : std::nullopt;
      if (!kind)
        return fail("unknown model kind in '" + *line + "'");
      config.kind = *kind;
      haveKind = true;
    } else if (key == "seed") {
      if (!number(1, config.seed))
        return fail("bad line '" + *line + "'");
    } else if (key == "inputs") {
      if (words.size() != 2)
        return fail("bad line '" + *line + "'");
      config.inputs = words[1].str();
    } else if (key == "platforms") {
      if (words.size() != 2)
        return fail("bad line '" + *line + "'");
      llvm::SmallVector<llvm::StringRef> names;
      words[1].split(names, ',', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef name : names)
        config.platforms.push_back(name.str());
    } else if (key == "normalized") {
      if (!number(1, value) || value > 1)
        return fail("bad line '" + *line + "'");
      normalized = value == 1;
    } else if (key == "param") {
      if (words.size() < 2)
        return fail("bad line '" + *line + "'");
      std::vector<int64_t> shape;
      for (size_t i = 2; i < words.size(); ++i) {
        if (!number(i, value) || value > (1u << 30))
          return fail("bad line '" + *line + "'");
        shape.push_back(int64_t(value));
      }
      params.emplace_back(words[1].str(), std::move(shape));
    } else if (key == "data") {
      uint64_t count = 0;
      if (words.size() != 3 || !number(1, count) ||
          words[2].getAsInteger(16, expectedSum))
        return fail("bad line '" + *line + "'");
      numFloats = count;
      break;
    } else {
      const ConfigField *field = nullptr;
      for (const ConfigField &f : kConfigFields)
        if (key == f.name)
          field = &f;
      if (!field)
        return fail("unknown header line '" + *line + "'");
      if (!number(1, value) || value > (1u << 30))
        return fail("bad line '" + *line + "'");
      config.*field->field = unsigned(value);
    }
  }
  if (!haveKind)
    return fail("the header names no model kind");
  if (rest.size() != numFloats * 4)
    return fail("expected " + llvm::Twine(numFloats * 4) +
                " bytes of weights, found " + llvm::Twine(rest.size()) +
                " (truncated or corrupt)");
  if (checksum(rest) != expectedSum)
    return fail("weights checksum mismatch (corrupt file)");

  auto impl = ModelImpl::make(config);
  if (!impl)
    return fail(llvm::toString(impl.takeError()));

  // The file's parameters must be exactly the network's, in order.
  auto named = (*impl)->net->named_parameters();
  if (named.size() != params.size())
    return fail("the file has " + llvm::Twine(params.size()) +
                " parameter tensors, a " + getModelKindName(config.kind) +
                " model of this config has " + llvm::Twine(named.size()));
  size_t needed = 2 * size_t(config.width);
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &item = named[i];
    std::vector<int64_t> shape(item.value().sizes().begin(),
                               item.value().sizes().end());
    if (item.key() != params[i].first || shape != params[i].second)
      return fail("parameter " + llvm::Twine(i) + " is '" + params[i].first +
                  "' " + shapeString(params[i].second) + " in the file but '" +
                  item.key() + "' " + shapeString(shape) +
                  " in the model (config mismatch)");
    needed += item.value().numel();
  }
  if (needed != numFloats)
    return fail("the header describes " + llvm::Twine(needed) +
                " floats, the data has " + llvm::Twine(numFloats));

  const char *cursor = rest.data();
  auto takeFloats = [&](float *out, size_t count) {
    for (size_t i = 0; i < count; ++i, cursor += 4)
      out[i] = llvm::bit_cast<float>(llvm::support::endian::read32le(cursor));
  };
  std::vector<float> mean(config.width), stddev(config.width);
  takeFloats(mean.data(), config.width);
  takeFloats(stddev.data(), config.width);
  {
    torch::NoGradGuard noGrad;
    for (const auto &item : named) {
      torch::Tensor value = item.value();
      std::vector<float> values(value.numel());
      takeFloats(values.data(), values.size());
      value.copy_(torch::from_blob(values.data(), value.sizes()));
    }
  }
  if (normalized) {
    for (float s : stddev)
      if (!(s > 0) || !std::isfinite(s))
        return fail("non-positive standard deviation in the normalization");
    (*impl)->setNormalization(std::move(mean), std::move(stddev));
  }
  (*impl)->net->eval();
  return std::move(*impl);
}
