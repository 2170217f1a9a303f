//===- DatasetTest.cpp - Dataset files and splits -------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Dataset.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace mlir::tcl;

namespace {

/// A temporary directory, removed with what the test wrote into it.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> created;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tcl-dataset", created));
    path = std::string(created);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string path;
};

/// Three workloads (two from model "net", one random) on two platforms,
/// three records each, one failed.
std::unique_ptr<TuningDatabase> makeDatabase(const std::string &path) {
  auto db = TuningDatabase::open(path);
  EXPECT_TRUE(bool(db));
  for (const char *platform : {"x86-avx512/1t", "x86-sse42/1t"}) {
    llvm::Expected<Platform> parsed = Platform::parse(platform);
    EXPECT_TRUE(bool(parsed));
    EXPECT_FALSE((*db)->addPlatform(*parsed));
  }
  std::vector<TuningRecord> records;
  for (int w = 0; w < 3; ++w) {
    std::string key = "workload" + std::to_string(w);
    EXPECT_FALSE(
        (*db)->addWorkload({key, "linalg.matmul", 1e6 * (w + 1), "module {}"}));
    EXPECT_FALSE((*db)->addWorkloadSource(key, w < 2 ? "net" : "random"));
    for (const char *platform : {"x86-avx512/1t", "x86-sse42/1t"})
      for (int r = 0; r < 3; ++r) {
        TuningRecord record;
        record.workloadKey = key;
        record.platform = platform;
        record.schedule = "schedule " + std::to_string(r);
        record.genome = r ? "1,2|3;0" : "";
        record.status = r == 2 ? "compile_error" : "ok";
        record.minSeconds = 1e-3 * (r + 1);
        record.medianSeconds = 1.5e-3 * (r + 1);
        record.maxSeconds = 2e-3 * (r + 1);
        record.repeats = 5;
        record.proposer = r ? "random/sample" : "default";
        record.codegen = w == 2 ? 1 : 0;
        records.push_back(record);
      }
  }
  EXPECT_FALSE((*db)->addRecords(records));
  return std::move(*db);
}

TEST(DatasetTest, ExportImportRoundTrip) {
  TempDir temp;
  const std::string &dir = temp.path;
  auto db = makeDatabase(dir + "/source.db");
  DatasetManifest manifest;
  manifest.seed = "7";
  ASSERT_FALSE(exportDataset(*db, dir + "/data", manifest));
  auto copy = TuningDatabase::open(":memory:");
  ASSERT_TRUE(bool(copy));
  auto added = importDataset(**copy, dir + "/data");
  ASSERT_TRUE(bool(added)) << llvm::toString(added.takeError());
  EXPECT_EQ(*added, 18u);
  for (const char *platform : {"x86-avx512/1t", "x86-sse42/1t"}) {
    std::vector<TuningRecord> before = db->getPlatformRecords(platform);
    std::vector<TuningRecord> after = (*copy)->getPlatformRecords(platform);
    ASSERT_EQ(before.size(), after.size());
    for (auto [a, b] : llvm::zip(before, after)) {
      EXPECT_EQ(a.workloadKey, b.workloadKey);
      EXPECT_EQ(a.schedule, b.schedule);
      EXPECT_EQ(a.genome, b.genome);
      EXPECT_EQ(a.status, b.status);
      EXPECT_EQ(a.medianSeconds, b.medianSeconds);
      EXPECT_EQ(a.minSeconds, b.minSeconds);
      EXPECT_EQ(a.repeats, b.repeats);
      EXPECT_EQ(a.proposer, b.proposer);
      EXPECT_EQ(a.codegen, b.codegen);
    }
    EXPECT_EQ(db->getPlatform(platform)->getFeatures().toJson(),
              (*copy)->getPlatform(platform)->getFeatures().toJson());
  }
  EXPECT_EQ(db->getWorkloadSources(), (*copy)->getWorkloadSources());

  // Only one platform.
  ASSERT_FALSE(exportDataset(*db, dir + "/one", manifest, {"x86-sse42/1t"}));
  auto single = TuningDatabase::open(":memory:");
  auto one = importDataset(**single, dir + "/one");
  ASSERT_TRUE(bool(one));
  EXPECT_EQ(*one, 9u);
}

TEST(DatasetTest, CorruptFilesAreErrors) {
  TempDir temp;
  const std::string &dir = temp.path;
  auto db = makeDatabase(dir + "/source.db");
  ASSERT_FALSE(exportDataset(*db, dir + "/data", DatasetManifest()));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir + "/data/records.jsonl.xz", ec);
    os << "not xz at all";
  }
  auto copy = TuningDatabase::open(":memory:");
  auto added = importDataset(**copy, dir + "/data");
  ASSERT_FALSE(bool(added));
  EXPECT_NE(llvm::toString(added.takeError()).find("not a valid xz stream"),
            std::string::npos);
  auto text = decompressXz(*compressXz("a\nb\n"));
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, "a\nb\n");
}

TEST(DatasetTest, GroupsAndSplits) {
  TempDir temp;
  const std::string &dir = temp.path;
  auto db = makeDatabase(dir + "/source.db");
  std::vector<DatasetGroup> groups = loadDatasetGroups(*db);
  ASSERT_EQ(groups.size(), 6u);
  EXPECT_EQ(groups[0].platform, "x86-avx512/1t");
  EXPECT_EQ(groups[0].records.size(), 3u);
  EXPECT_EQ(loadDatasetGroups(*db, {"x86-sse42/1t"}).size(), 3u);
  EXPECT_TRUE(loadDatasetGroups(*db, {}, 4).empty());
  // Spreads are (2 - 1) / 1.5 = 0.67 for every successful record: a
  // tighter limit leaves only the failed ones, one per group.
  EXPECT_EQ(loadDatasetGroups(*db, {}, 2, 1.0).size(), 6u);
  EXPECT_TRUE(loadDatasetGroups(*db, {}, 2, 0.5).empty());
  EXPECT_EQ(loadDatasetGroups(*db, {}, 1, 0.5)[0].records.size(), 1u);
  // A task measured again by a later code generation keeps only those
  // records: workload0's two by version 2 on x86-sse42, not its three of 0.
  TuningRecord again = groups[3].records[0];
  ASSERT_EQ(again.workloadKey, "workload0");
  ASSERT_EQ(again.platform, "x86-sse42/1t");
  again.codegen = 2;
  again.schedule = "measured again";
  TuningRecord again2 = again;
  again2.schedule = "measured again 2";
  ASSERT_FALSE(db->addRecords({again, again2}));
  std::vector<DatasetGroup> latest = loadDatasetGroups(*db);
  ASSERT_EQ(latest.size(), 6u);
  ASSERT_EQ(latest[3].records.size(), 2u);
  EXPECT_EQ(latest[3].records[0].schedule, "measured again");
  EXPECT_EQ(latest[0].records.size(), 3u);

  auto byModel = splitDataset(groups, "model:random");
  ASSERT_TRUE(bool(byModel));
  EXPECT_EQ(byModel->test.size(), 2u);
  for (size_t index : byModel->test)
    EXPECT_EQ(groups[index].workloadKey, "workload2");
  auto byPlatform = splitDataset(groups, "platform:x86-sse42/1t");
  ASSERT_TRUE(bool(byPlatform));
  EXPECT_EQ(byPlatform->train.size(), 3u);
  for (size_t index : byPlatform->train)
    EXPECT_EQ(groups[index].platform, "x86-avx512/1t");
  // A task split holds a workload out on every platform or on none.
  auto byTask = splitDataset(groups, "task");
  if (byTask) {
    for (size_t held : byTask->test)
      for (size_t kept : byTask->train)
        EXPECT_NE(groups[held].workloadKey, groups[kept].workloadKey);
  } else {
    llvm::consumeError(byTask.takeError());
  }
  for (llvm::StringRef bad : {"model", "platform:", "bogus", "model:none"}) {
    auto split = splitDataset(groups, bad);
    EXPECT_FALSE(bool(split)) << bad.str();
    llvm::consumeError(split.takeError());
  }
}

} // namespace
