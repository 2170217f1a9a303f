//===- Dataset.cpp - Cost-model datasets: files and splits ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Dataset.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <lzma.h>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

static llvm::Error datasetError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "dataset: " + message);
}

//===----------------------------------------------------------------------===//
// xz
//===----------------------------------------------------------------------===//

llvm::Expected<std::string> mlir::tcl::compressXz(llvm::StringRef data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  size_t written = 0;
  // Preset 9: the dataset is written once and read many times.
  lzma_ret status = lzma_easy_buffer_encode(
      9, LZMA_CHECK_CRC64, nullptr,
      reinterpret_cast<const uint8_t *>(data.data()), data.size(),
      reinterpret_cast<uint8_t *>(out.data()), &written, out.size());
  if (status != LZMA_OK)
    return datasetError("xz compression failed (" + llvm::Twine(status) + ")");
  out.resize(written);
  return out;
}

llvm::Expected<std::string> mlir::tcl::decompressXz(llvm::StringRef data) {
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, 0) != LZMA_OK)
    return datasetError("cannot start the xz decoder");
  std::string out;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<const uint8_t *>(data.data());
  stream.avail_in = data.size();
  lzma_ret status = LZMA_OK;
  while (status == LZMA_OK) {
    stream.next_out = reinterpret_cast<uint8_t *>(buffer);
    stream.avail_out = sizeof(buffer);
    status = lzma_code(&stream, LZMA_FINISH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
  }
  lzma_end(&stream);
  if (status != LZMA_STREAM_END)
    return datasetError("not a valid xz stream (" + llvm::Twine(status) + ")");
  return out;
}

//===----------------------------------------------------------------------===//
// Export and import
//===----------------------------------------------------------------------===//

static std::string toText(llvm::json::Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

static llvm::Error writeFile(llvm::StringRef path, llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return datasetError("cannot write '" + path + "': " + ec.message());
  os << data;
  return llvm::Error::success();
}

static llvm::Expected<std::string> readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return datasetError("cannot read '" + path +
                        "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

llvm::Error mlir::tcl::exportDataset(TuningDatabase &database,
                                     llvm::StringRef dir,
                                     const DatasetManifest &manifest,
                                     llvm::ArrayRef<std::string> platforms) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return datasetError("cannot create '" + dir + "': " + ec.message());
  auto wanted = [&](llvm::StringRef platform) {
    return platforms.empty() || llvm::is_contained(platforms, platform);
  };

  llvm::json::Array platformArray;
  llvm::StringMap<size_t> platformIndex;
  std::vector<Platform> exported;
  for (Platform &platform : database.getPlatforms()) {
    std::string name = platform.getName();
    if (!wanted(name))
      continue;
    platformIndex[name] = platformArray.size();
    llvm::Expected<llvm::json::Value> features =
        llvm::json::parse(platform.getFeatures().toJson());
    if (!features)
      return features.takeError();
    platformArray.push_back(
        llvm::json::Object{{"name", name},
                           {"target", platform.getTargetName()},
                           {"threads", platform.getThreads()},
                           {"features", std::move(*features)}});
    exported.push_back(std::move(platform));
  }

  // Records first: only workloads with records on the platforms go out.
  std::map<std::string, std::vector<std::string>> sources =
      database.getWorkloadSources();
  std::vector<WorkloadEntry> workloads = database.getWorkloads();
  llvm::StringMap<size_t> workloadIndex;
  for (auto [index, workload] : llvm::enumerate(workloads))
    workloadIndex[workload.key] = index;
  std::vector<bool> used(workloads.size(), false);
  std::string records;
  llvm::raw_string_ostream recordsOs(records);
  std::map<std::string, size_t> perPlatform;
  for (const Platform &platform : exported) {
    std::string name = platform.getName();
    for (const TuningRecord &record : database.getPlatformRecords(name)) {
      auto workload = workloadIndex.find(record.workloadKey);
      if (workload == workloadIndex.end())
        continue;
      used[workload->second] = true;
      ++perPlatform[name];
      llvm::json::Object line{
          {"w", static_cast<int64_t>(workload->second)},
          {"p", static_cast<int64_t>(platformIndex[name])},
          {"s", record.schedule},
          {"t", llvm::json::Array{record.minSeconds, record.medianSeconds,
                                  record.maxSeconds}},
          {"r", record.repeats},
          {"by", record.proposer}};
      if (!record.isOk())
        line["st"] = record.status;
      if (!record.genome.empty())
        line["g"] = record.genome;
      if (record.codegen)
        line["cg"] = static_cast<int64_t>(record.codegen);
      recordsOs << llvm::json::Value(std::move(line)) << "\n";
    }
  }

  std::string workloadLines;
  llvm::raw_string_ostream workloadOs(workloadLines);
  for (auto [index, workload] : llvm::enumerate(workloads)) {
    llvm::json::Array workloadSources;
    for (const std::string &source : sources[workload.key])
      workloadSources.push_back(source);
    // Unused workloads stay as placeholders so indices need no remapping.
    llvm::json::Object line{{"key", workload.key}};
    if (used[index]) {
      line["anchor"] = workload.anchor;
      line["flops"] = workload.flops;
      line["module"] = workload.module;
      line["sources"] = std::move(workloadSources);
    }
    workloadOs << llvm::json::Value(std::move(line)) << "\n";
  }

  llvm::json::Object counts;
  for (const auto &[name, count] : perPlatform)
    counts[name] = static_cast<int64_t>(count);
  llvm::json::Object manifestObject{
      {"format", "tcl-dataset-1"},
      {"command", manifest.command},
      {"seed", manifest.seed},
      {"date", manifest.date},
      {"machine", manifest.machine},
      {"notes", manifest.notes},
      {"workloads", static_cast<int64_t>(llvm::count(used, true))},
      {"records", std::move(counts)}};

  auto compressedRecords = compressXz(recordsOs.str());
  if (!compressedRecords)
    return compressedRecords.takeError();
  auto compressedWorkloads = compressXz(workloadOs.str());
  if (!compressedWorkloads)
    return compressedWorkloads.takeError();
  auto file = [&](llvm::StringRef name) {
    llvm::SmallString<256> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  };
  if (llvm::Error error = writeFile(
          file("MANIFEST.json"),
          toText(llvm::json::Value(std::move(manifestObject))) + "\n"))
    return error;
  if (llvm::Error error =
          writeFile(file("platforms.json"),
                    toText(llvm::json::Value(std::move(platformArray))) + "\n"))
    return error;
  if (llvm::Error error =
          writeFile(file("workloads.jsonl.xz"), *compressedWorkloads))
    return error;
  return writeFile(file("records.jsonl.xz"), *compressedRecords);
}

llvm::Error mlir::tcl::exportDatasetGroups(TuningDatabase &database,
                                           llvm::ArrayRef<DatasetGroup> groups,
                                           llvm::StringRef dir,
                                           const DatasetManifest &manifest) {
  auto subset = TuningDatabase::open(":memory:");
  if (!subset)
    return subset.takeError();
  std::map<std::string, std::vector<std::string>> sources =
      database.getWorkloadSources();
  std::set<std::string> platforms, workloads;
  for (const DatasetGroup &group : groups) {
    if (platforms.insert(group.platform).second) {
      std::optional<Platform> platform = database.getPlatform(group.platform);
      if (!platform)
        return datasetError("unknown platform '" + group.platform + "'");
      if (llvm::Error error = (*subset)->addPlatform(*platform))
        return error;
    }
    if (workloads.insert(group.workloadKey).second) {
      std::optional<WorkloadEntry> workload =
          database.getWorkload(group.workloadKey);
      if (!workload)
        return datasetError("unknown workload '" +
                            group.workloadKey.substr(0, 60) + "'");
      if (llvm::Error error = (*subset)->addWorkload(*workload))
        return error;
      for (const std::string &source : sources[group.workloadKey])
        if (llvm::Error error =
                (*subset)->addWorkloadSource(group.workloadKey, source))
          return error;
    }
    if (llvm::Error error = (*subset)->addRecords(group.records))
      return error;
  }
  return exportDataset(**subset, dir, manifest);
}

llvm::Expected<size_t> mlir::tcl::importDataset(TuningDatabase &database,
                                                llvm::StringRef dir) {
  auto file = [&](llvm::StringRef name) {
    llvm::SmallString<256> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  };
  llvm::Expected<std::string> platformsText = readFile(file("platforms.json"));
  if (!platformsText)
    return platformsText.takeError();
  llvm::Expected<llvm::json::Value> platformsJson =
      llvm::json::parse(*platformsText);
  if (!platformsJson)
    return datasetError("platforms.json: " +
                        llvm::toString(platformsJson.takeError()));
  const llvm::json::Array *platformArray = platformsJson->getAsArray();
  if (!platformArray)
    return datasetError("platforms.json is not an array");
  std::vector<std::string> platformNames;
  for (const llvm::json::Value &value : *platformArray) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object || !object->getString("name"))
      return datasetError("platforms.json: a platform without a name");
    llvm::Expected<Platform> platform =
        Platform::parse(*object->getString("name"));
    if (!platform)
      return datasetError("platforms.json: " +
                          llvm::toString(platform.takeError()));
    if (const llvm::json::Value *features = object->get("features"))
      if (std::optional<HardwareFeatures> known =
              HardwareFeatures::fromJson(toText(*features)))
        platform->setFeatures(*known);
    if (llvm::Error error = database.addPlatform(*platform))
      return std::move(error);
    platformNames.push_back(platform->getName());
  }

  llvm::Expected<std::string> workloadsXz =
      readFile(file("workloads.jsonl.xz"));
  if (!workloadsXz)
    return workloadsXz.takeError();
  llvm::Expected<std::string> workloadsText = decompressXz(*workloadsXz);
  if (!workloadsText)
    return workloadsText.takeError();
  std::vector<std::string> workloadKeys;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*workloadsText).split(lines, '\n', -1, false);
  for (auto [number, line] : llvm::enumerate(lines)) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
    if (!object || !object->getString("key")) {
      if (!value)
        llvm::consumeError(value.takeError());
      return datasetError("workloads line " + llvm::Twine(number + 1) +
                          ": not a workload");
    }
    WorkloadEntry workload;
    workload.key = object->getString("key")->str();
    workloadKeys.push_back(workload.key);
    if (!object->getString("module"))
      continue;
    workload.anchor = object->getString("anchor").value_or("").str();
    workload.flops = object->getNumber("flops").value_or(0);
    workload.module = object->getString("module")->str();
    if (llvm::Error error = database.addWorkload(workload))
      return std::move(error);
    if (const llvm::json::Array *sources = object->getArray("sources"))
      for (const llvm::json::Value &source : *sources)
        if (std::optional<llvm::StringRef> name = source.getAsString())
          if (llvm::Error error =
                  database.addWorkloadSource(workload.key, *name))
            return std::move(error);
  }

  llvm::Expected<std::string> recordsXz = readFile(file("records.jsonl.xz"));
  if (!recordsXz)
    return recordsXz.takeError();
  llvm::Expected<std::string> recordsText = decompressXz(*recordsXz);
  if (!recordsText)
    return recordsText.takeError();
  lines.clear();
  llvm::StringRef(*recordsText).split(lines, '\n', -1, false);
  std::vector<TuningRecord> records;
  records.reserve(lines.size());
  for (auto [number, line] : llvm::enumerate(lines)) {
    auto bad = [&, number = number](const llvm::Twine &why) {
      return datasetError("records line " + llvm::Twine(number + 1) + ": " +
                          why);
    };
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value)
      return bad(llvm::toString(value.takeError()));
    const llvm::json::Object *object = value->getAsObject();
    std::optional<int64_t> workload =
        object ? object->getInteger("w") : std::nullopt;
    std::optional<int64_t> platform =
        object ? object->getInteger("p") : std::nullopt;
    const llvm::json::Array *times = object ? object->getArray("t") : nullptr;
    if (!workload || !platform || *workload < 0 ||
        *workload >= static_cast<int64_t>(workloadKeys.size()) ||
        *platform < 0 ||
        *platform >= static_cast<int64_t>(platformNames.size()) || !times ||
        times->size() != 3 || !object->getString("s"))
      return bad("needs a workload, a platform, a schedule and three times");
    TuningRecord record;
    record.workloadKey = workloadKeys[*workload];
    record.platform = platformNames[*platform];
    record.schedule = object->getString("s")->str();
    record.status = object->getString("st").value_or("ok").str();
    record.genome = object->getString("g").value_or("").str();
    record.minSeconds = (*times)[0].getAsNumber().value_or(0);
    record.medianSeconds = (*times)[1].getAsNumber().value_or(0);
    record.maxSeconds = (*times)[2].getAsNumber().value_or(0);
    record.repeats = object->getInteger("r").value_or(0);
    record.proposer = object->getString("by").value_or("").str();
    record.codegen = object->getInteger("cg").value_or(0);
    records.push_back(std::move(record));
  }
  if (llvm::Error error = database.addRecords(records))
    return std::move(error);
  return records.size();
}

//===----------------------------------------------------------------------===//
// Groups and splits
//===----------------------------------------------------------------------===//

void mlir::tcl::keepLatestCodegen(std::vector<TuningRecord> &records) {
  unsigned latest = 0;
  for (const TuningRecord &record : records)
    latest = std::max(latest, record.codegen);
  llvm::erase_if(records, [&](const TuningRecord &record) {
    return record.codegen != latest;
  });
}

std::vector<DatasetGroup>
mlir::tcl::loadDatasetGroups(TuningDatabase &database,
                             llvm::ArrayRef<std::string> platforms,
                             size_t minRecords, double maxSpread) {
  std::map<std::string, std::vector<std::string>> sources =
      database.getWorkloadSources();
  std::map<std::pair<std::string, std::string>, DatasetGroup> byKey;
  for (const Platform &platform : database.getPlatforms()) {
    std::string name = platform.getName();
    if (!platforms.empty() && !llvm::is_contained(platforms, name))
      continue;
    for (TuningRecord &record : database.getPlatformRecords(name)) {
      if (maxSpread > 0 && record.timingSpread() > maxSpread)
        continue;
      DatasetGroup &group = byKey[{name, record.workloadKey}];
      if (group.records.empty()) {
        group.workloadKey = record.workloadKey;
        group.platform = name;
        group.sources = sources[record.workloadKey];
      }
      group.records.push_back(std::move(record));
    }
  }
  std::vector<DatasetGroup> groups;
  for (auto &[key, group] : byKey) {
    keepLatestCodegen(group.records);
    if (group.records.size() >= minRecords)
      groups.push_back(std::move(group));
  }
  return groups;
}

llvm::Expected<DatasetSplit>
mlir::tcl::splitDataset(llvm::ArrayRef<DatasetGroup> groups,
                        llvm::StringRef spec) {
  auto [kind, name] = spec.split(':');
  std::function<bool(const DatasetGroup &)> heldOut;
  if (kind == "task" && name.empty())
    heldOut = [](const DatasetGroup &group) {
      return llvm::xxHash64(group.workloadKey) % 5 == 0;
    };
  else if (kind == "model" && !name.empty())
    heldOut = [name = name.str()](const DatasetGroup &group) {
      return llvm::is_contained(group.sources, name);
    };
  else if (kind == "platform" && !name.empty())
    heldOut = [name = name.str()](const DatasetGroup &group) {
      return group.platform == name;
    };
  else
    return datasetError("unknown split '" + spec +
                        "' (task, model:NAME, platform:NAME)");
  DatasetSplit split;
  for (auto [index, group] : llvm::enumerate(groups))
    (heldOut(group) ? split.test : split.train).push_back(index);
  if (split.train.empty() || split.test.empty())
    return datasetError(
        "split '" + spec + "' leaves " +
        (split.train.empty() ? "nothing to train on" : "nothing held out"));
  return split;
}
