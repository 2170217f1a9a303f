//===- Database.cpp - The tuning database (SQLite) ------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Database.h"
#include "SqliteStatement.h"
#include "tcl/Target/Platform.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <ctime>
#include <sqlite3.h>

using namespace mlir::tcl;
using sqlite::sqliteError;
using sqlite::Statement;

namespace {

constexpr const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS workloads(
  id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, anchor TEXT,
  flops REAL, module TEXT);
CREATE TABLE IF NOT EXISTS platforms(
  id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, target TEXT,
  threads INTEGER, features TEXT);
CREATE TABLE IF NOT EXISTS records(
  id INTEGER PRIMARY KEY,
  workload INTEGER NOT NULL REFERENCES workloads(id),
  platform INTEGER NOT NULL REFERENCES platforms(id),
  schedule TEXT, genome TEXT, status TEXT, message TEXT,
  min_s REAL, median_s REAL, max_s REAL, repeats INTEGER, max_error REAL,
  proposer TEXT, round INTEGER, time TEXT, codegen INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS records_by_task ON records(workload, platform);
CREATE TABLE IF NOT EXISTS workload_sources(
  key TEXT NOT NULL, source TEXT NOT NULL, UNIQUE(key, source));
)sql";

/// The version of kSchema, stored in the file's `PRAGMA user_version` when
/// it is created. A database of a later version is refused rather than read
/// as empty; an earlier one is upgraded when it opens (version 1 lacks the
/// records' `codegen` column: its records get 0, unknown). Version 0 is a
/// database from before the version was stored: it opens (and is upgraded)
/// if its tables are version 1's.
constexpr int64_t kSchemaVersion = 2;

/// The tables of kSchema and the columns each must have in `version`.
struct TableColumns {
  const char *table;
  std::vector<const char *> columns;
  int64_t version = 1;
};
const TableColumns kSchemaTables[] = {
    {"workloads", {"id", "key", "anchor", "flops", "module"}},
    {"platforms", {"id", "name", "target", "threads", "features"}},
    {"records",
     {"id", "workload", "platform", "schedule", "genome", "status", "message",
      "min_s", "median_s", "max_s", "repeats", "max_error", "proposer", "round",
      "time"}},
    {"records", {"codegen"}, 2},
};

constexpr const char *kRecordColumns =
    "w.key, p.name, r.schedule, r.genome, r.status, r.message, r.min_s, "
    "r.median_s, r.max_s, r.repeats, r.max_error, r.proposer, r.round, "
    "r.time, r.codegen";
constexpr const char *kRecordsFrom =
    " FROM records r JOIN workloads w ON r.workload = w.id "
    "JOIN platforms p ON r.platform = p.id ";

} // namespace

std::string mlir::tcl::currentTimeIso() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ",
                std::gmtime(&now));
  return buffer;
}

llvm::Expected<std::unique_ptr<TuningDatabase>>
TuningDatabase::open(llvm::StringRef path) {
  sqlite3 *db = nullptr;
  if (sqlite3_open(path.str().c_str(), &db) != SQLITE_OK) {
    llvm::Error error = sqliteError(db, "cannot open '" + path + "'");
    sqlite3_close(db);
    return std::move(error);
  }
  // A collector and an export may use the file at the same time.
  sqlite3_busy_timeout(db, 30000);
  std::unique_ptr<TuningDatabase> database(new TuningDatabase(db));
  if (llvm::Error error = database->checkFile(path))
    return std::move(error);
  // WAL: a reader never blocks the tuner, and a killed writer leaves the
  // last committed transaction intact.
  if (llvm::Error error = database->exec("PRAGMA journal_mode=WAL;"))
    return std::move(error);
  int64_t version = 0;
  {
    Statement query(db, "PRAGMA user_version");
    if (!query.valid() || query.step() != SQLITE_ROW)
      return sqliteError(db, "read the schema version of '" + path + "'");
    version = query.integer(0);
  }
  // Upgrade an earlier schema (checkFile found its tables whole), then stamp
  // a new database or an upgraded one, all in one transaction.
  bool hasRecords = false, hasCodegen = false;
  {
    Statement columns(db, "PRAGMA table_info(records)");
    if (!columns.valid())
      return sqliteError(db, "read the schema of '" + path + "'");
    for (; columns.step() == SQLITE_ROW; hasRecords = true)
      hasCodegen |= columns.text(1) == "codegen";
  }
  std::string upgrade = "BEGIN;"; // Deferred: a read-only file still opens.
  if (hasRecords && !hasCodegen)
    upgrade += "ALTER TABLE records ADD COLUMN codegen INTEGER NOT NULL "
               "DEFAULT 0;";
  upgrade += kSchema;
  if (version != kSchemaVersion)
    upgrade += "PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
  upgrade += "COMMIT;";
  if (llvm::Error error = database->exec(upgrade)) {
    llvm::consumeError(database->exec("ROLLBACK;"));
    return std::move(error);
  }
  return std::move(database);
}

llvm::Error TuningDatabase::checkFile(llvm::StringRef path) {
  auto refuse = [&](const llvm::Twine &reason) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tuning database '" + path + "': " + reason);
  };
  // Damaged pages: without this check, queries over them fail and read as
  // "no records".
  {
    auto unreadable = [&]() {
      bool corrupt = (sqlite3_errcode(db) & 0xff) == SQLITE_CORRUPT;
      return refuse(llvm::Twine(corrupt ? "the file is corrupt ("
                                        : "not a readable SQLite database (") +
                    sqlite3_errmsg(db) + ")");
    };
    Statement check(db, "PRAGMA quick_check");
    if (!check.valid())
      return unreadable();
    std::vector<std::string> problems;
    int status;
    while ((status = check.step()) == SQLITE_ROW)
      if (check.text(0) != "ok" && problems.size() < 3)
        problems.push_back(check.text(0));
    if (status != SQLITE_DONE)
      return unreadable();
    if (!problems.empty())
      return refuse("the file is corrupt (PRAGMA quick_check: " +
                    llvm::join(problems, "; ") + ")");
  }
  Statement versionQuery(db, "PRAGMA user_version");
  if (!versionQuery.valid() || versionQuery.step() != SQLITE_ROW)
    return sqliteError(db, "read the schema version of '" + path + "'");
  int64_t version = versionQuery.integer(0);
  Statement tableQuery(db, "SELECT count(*) FROM sqlite_master");
  if (!tableQuery.valid() || tableQuery.step() != SQLITE_ROW)
    return sqliteError(db, "read the tables of '" + path + "'");
  if (version == 0 && tableQuery.integer(0) == 0)
    return llvm::Error::success(); // A new database: open creates it.
  if (version > kSchemaVersion)
    return refuse("it has schema version " + llvm::Twine(version) +
                  ", this tcl reads versions up to " +
                  llvm::Twine(kSchemaVersion));
  // The tables must be those of the version the file claims (version 1's
  // for 0, written before the version was stored).
  for (const TableColumns &expected : kSchemaTables) {
    Statement columns(
        db, ("PRAGMA table_info(" + llvm::Twine(expected.table) + ")").str());
    if (!columns.valid())
      return sqliteError(db, "read the schema of '" + path + "'");
    llvm::StringSet<> present;
    while (columns.step() == SQLITE_ROW)
      present.insert(columns.text(1));
    int64_t claimed = std::max<int64_t>(version, 1);
    std::string what = version == 0
                           ? "it is not a tcl tuning database"
                           : "its schema is not version " +
                                 std::to_string(version) + " as it claims";
    if (present.empty())
      return refuse(what + " (no table '" + expected.table +
                    "'; expected schema version " + std::to_string(claimed) +
                    ")");
    for (const char *column : expected.columns)
      if (expected.version <= claimed && !present.contains(column))
        return refuse(
            what + " (table '" + expected.table + "' has no column '" + column +
            "'; expected schema version " + std::to_string(claimed) + ")");
  }
  return llvm::Error::success();
}

TuningDatabase::~TuningDatabase() { sqlite3_close(db); }

llvm::Error TuningDatabase::exec(llvm::StringRef sql) {
  char *message = nullptr;
  if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message) ==
      SQLITE_OK)
    return llvm::Error::success();
  std::string text = message ? message : "unknown error";
  sqlite3_free(message);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tuning database: " + text);
}

llvm::Error TuningDatabase::addWorkload(const WorkloadEntry &workload) {
  Statement insert(db, "INSERT OR IGNORE INTO workloads(key, anchor, flops, "
                       "module) VALUES(?, ?, ?, ?)");
  if (!insert.valid())
    return sqliteError(db, "prepare");
  insert.bind(1, workload.key)
      .bind(2, workload.anchor)
      .bind(3, workload.flops)
      .bind(4, workload.module);
  if (insert.step() != SQLITE_DONE)
    return sqliteError(db, "add workload");
  return llvm::Error::success();
}

llvm::Error TuningDatabase::addPlatform(const Platform &platform) {
  Statement insert(db, "INSERT OR IGNORE INTO platforms(name, target, "
                       "threads, features) VALUES(?, ?, ?, ?)");
  if (!insert.valid())
    return sqliteError(db, "prepare");
  insert.bind(1, platform.getName())
      .bind(2, platform.getTargetName())
      .bind(3, static_cast<int64_t>(platform.getThreads()))
      .bind(4, platform.getFeatures().toJson());
  if (insert.step() != SQLITE_DONE)
    return sqliteError(db, "add platform");
  return llvm::Error::success();
}

llvm::Error TuningDatabase::addWorkloadSource(llvm::StringRef key,
                                              llvm::StringRef source) {
  Statement insert(db, "INSERT OR IGNORE INTO workload_sources(key, source) "
                       "VALUES(?, ?)");
  if (!insert.valid())
    return sqliteError(db, "prepare");
  insert.bind(1, key).bind(2, source);
  if (insert.step() != SQLITE_DONE)
    return sqliteError(db, "add workload source");
  return llvm::Error::success();
}

std::map<std::string, std::vector<std::string>>
TuningDatabase::getWorkloadSources() {
  std::map<std::string, std::vector<std::string>> sources;
  Statement query(db,
                  "SELECT key, source FROM workload_sources ORDER BY rowid");
  if (!query.valid())
    return sources;
  while (query.step() == SQLITE_ROW)
    sources[query.text(0)].push_back(query.text(1));
  return sources;
}

std::optional<Platform> TuningDatabase::getPlatform(llvm::StringRef name) {
  for (Platform &platform : getPlatforms())
    if (platform.getName() == name)
      return std::move(platform);
  return std::nullopt;
}

std::vector<Platform> TuningDatabase::getPlatforms() {
  std::vector<Platform> platforms;
  Statement query(db, "SELECT name, features FROM platforms ORDER BY id");
  if (!query.valid())
    return platforms;
  while (query.step() == SQLITE_ROW) {
    llvm::Expected<Platform> platform = Platform::parse(query.text(0));
    if (!platform) {
      llvm::consumeError(platform.takeError());
      continue;
    }
    if (std::optional<HardwareFeatures> features =
            HardwareFeatures::fromJson(query.text(1)))
      platform->setFeatures(*features);
    platforms.push_back(std::move(*platform));
  }
  return platforms;
}

llvm::Error TuningDatabase::setPlatformFeatures(const Platform &platform) {
  Statement update(db, "UPDATE platforms SET features = ? WHERE name = ?");
  if (!update.valid())
    return sqliteError(db, "prepare");
  update.bind(1, platform.getFeatures().toJson()).bind(2, platform.getName());
  if (update.step() != SQLITE_DONE)
    return sqliteError(db, "set platform features");
  return llvm::Error::success();
}

std::vector<WorkloadEntry> TuningDatabase::getWorkloads() {
  std::vector<WorkloadEntry> workloads;
  Statement query(db, "SELECT key, anchor, flops, module FROM workloads "
                      "ORDER BY id");
  if (!query.valid())
    return workloads;
  while (query.step() == SQLITE_ROW)
    workloads.push_back(
        {query.text(0), query.text(1), query.real(2), query.text(3)});
  return workloads;
}

std::optional<WorkloadEntry> TuningDatabase::getWorkload(llvm::StringRef key) {
  Statement query(
      db, "SELECT key, anchor, flops, module FROM workloads WHERE key = ?");
  if (!query.valid())
    return std::nullopt;
  query.bind(1, key);
  if (query.step() != SQLITE_ROW)
    return std::nullopt;
  return WorkloadEntry{query.text(0), query.text(1), query.real(2),
                       query.text(3)};
}

llvm::Error
TuningDatabase::inTransaction(llvm::function_ref<llvm::Error()> body) {
  if (llvm::Error error = exec("BEGIN IMMEDIATE;"))
    return error;
  if (llvm::Error error = body()) {
    llvm::consumeError(exec("ROLLBACK;"));
    return error;
  }
  return exec("COMMIT;");
}

llvm::Error TuningDatabase::addRecords(llvm::ArrayRef<TuningRecord> records) {
  return inTransaction([&]() -> llvm::Error {
    Statement insert(
        db,
        "INSERT INTO records(workload, platform, schedule, genome, status, "
        "message, min_s, median_s, max_s, repeats, max_error, proposer, "
        "round, time, codegen) SELECT w.id, p.id, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ? FROM workloads w, platforms p WHERE w.key = ? AND "
        "p.name = ?");
    if (!insert.valid())
      return sqliteError(db, "prepare");
    for (const TuningRecord &record : records) {
      insert.bind(1, record.schedule)
          .bind(2, record.genome)
          .bind(3, record.status)
          .bind(4, record.message)
          .bind(5, record.minSeconds)
          .bind(6, record.medianSeconds)
          .bind(7, record.maxSeconds)
          .bind(8, static_cast<int64_t>(record.repeats))
          .bind(9, record.maxError)
          .bind(10, record.proposer)
          .bind(11, static_cast<int64_t>(record.round))
          .bind(12, record.time.empty() ? currentTimeIso() : record.time)
          .bind(13, static_cast<int64_t>(record.codegen))
          .bind(14, record.workloadKey)
          .bind(15, record.platform);
      if (insert.step() != SQLITE_DONE)
        return sqliteError(db, "add record");
      if (sqlite3_changes(db) != 1)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "tuning database: record of unknown workload or platform '" +
                record.platform + "'");
      insert.reset();
    }
    return llvm::Error::success();
  });
}

llvm::Error
TuningDatabase::updateMeasurements(llvm::ArrayRef<TuningRecord> records) {
  return inTransaction([&]() -> llvm::Error {
    Statement update(
        db, "UPDATE records SET status = ?, message = ?, min_s = ?, "
            "median_s = ?, max_s = ?, repeats = ?, max_error = ?, time = ? "
            "WHERE workload = (SELECT id FROM workloads WHERE key = ?) AND "
            "platform = (SELECT id FROM platforms WHERE name = ?) AND "
            "schedule = ? AND codegen = ?");
    if (!update.valid())
      return sqliteError(db, "prepare");
    for (const TuningRecord &record : records) {
      update.bind(1, record.status)
          .bind(2, record.message)
          .bind(3, record.minSeconds)
          .bind(4, record.medianSeconds)
          .bind(5, record.maxSeconds)
          .bind(6, static_cast<int64_t>(record.repeats))
          .bind(7, record.maxError)
          .bind(8, record.time.empty() ? currentTimeIso() : record.time)
          .bind(9, record.workloadKey)
          .bind(10, record.platform)
          .bind(11, record.schedule)
          .bind(12, static_cast<int64_t>(record.codegen));
      if (update.step() != SQLITE_DONE)
        return sqliteError(db, "update record");
      if (sqlite3_changes(db) == 0)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "tuning database: no record to update of this schedule on '" +
                record.platform + "'");
      update.reset();
    }
    return llvm::Error::success();
  });
}

std::vector<TuningRecord>
TuningDatabase::queryRecords(llvm::StringRef where,
                             llvm::ArrayRef<std::string> args) {
  std::vector<TuningRecord> records;
  Statement query(
      db,
      (llvm::Twine("SELECT ") + kRecordColumns + kRecordsFrom + where).str());
  if (!query.valid())
    return records;
  for (auto [index, arg] : llvm::enumerate(args))
    query.bind(index + 1, llvm::StringRef(arg));
  while (query.step() == SQLITE_ROW) {
    TuningRecord record;
    record.workloadKey = query.text(0);
    record.platform = query.text(1);
    record.schedule = query.text(2);
    record.genome = query.text(3);
    record.status = query.text(4);
    record.message = query.text(5);
    record.minSeconds = query.real(6);
    record.medianSeconds = query.real(7);
    record.maxSeconds = query.real(8);
    record.repeats = query.integer(9);
    record.maxError = query.real(10);
    record.proposer = query.text(11);
    record.round = query.integer(12);
    record.time = query.text(13);
    record.codegen = query.integer(14);
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<TuningRecord>
TuningDatabase::getRecords(llvm::StringRef workloadKey,
                           llvm::StringRef platform) {
  return queryRecords("WHERE w.key = ? AND p.name = ? ORDER BY r.id",
                      {workloadKey.str(), platform.str()});
}

std::vector<TuningRecord>
TuningDatabase::getPlatformRecords(llvm::StringRef platform) {
  return queryRecords("WHERE p.name = ? ORDER BY r.id", {platform.str()});
}

std::optional<TuningRecord> TuningDatabase::getBest(llvm::StringRef workloadKey,
                                                    llvm::StringRef platform,
                                                    unsigned codegen) {
  std::vector<TuningRecord> best = queryRecords(
      "WHERE w.key = ? AND p.name = ? AND r.status = 'ok' "
      "ORDER BY r.codegen = CAST(? AS INTEGER) DESC, r.median_s ASC, "
      "r.id ASC LIMIT 1",
      {workloadKey.str(), platform.str(), std::to_string(codegen)});
  if (best.empty())
    return std::nullopt;
  return best.front();
}

std::vector<TuningDatabase::Summary> TuningDatabase::summarize() {
  std::vector<Summary> rows;
  Statement query(db,
                  "SELECT w.key, w.anchor, p.name, COUNT(*), "
                  "SUM(r.status != 'ok'), MIN(CASE WHEN r.status = 'ok' THEN "
                  "r.median_s END), w.flops, MIN(r.codegen), "
                  "MAX(r.codegen) FROM records r "
                  "JOIN workloads w ON r.workload = w.id "
                  "JOIN platforms p ON r.platform = p.id "
                  "GROUP BY w.id, p.id ORDER BY w.id, p.id");
  if (!query.valid())
    return rows;
  while (query.step() == SQLITE_ROW)
    rows.push_back({query.text(0), query.text(1), query.text(2),
                    static_cast<size_t>(query.integer(3)),
                    static_cast<size_t>(query.integer(4)), query.real(5),
                    query.real(6), static_cast<unsigned>(query.integer(7)),
                    static_cast<unsigned>(query.integer(8))});
  return rows;
}

size_t TuningDatabase::countRecords() {
  Statement query(db, "SELECT COUNT(*) FROM records");
  return query.valid() && query.step() == SQLITE_ROW ? query.integer(0) : 0;
}

llvm::Error TuningDatabase::exportJsonLines(llvm::raw_ostream &os) {
  Statement query(
      db, (llvm::Twine("SELECT ") + kRecordColumns +
           ", w.anchor, w.flops, w.module, p.target, p.threads, p.features" +
           kRecordsFrom + "ORDER BY r.id")
              .str());
  if (!query.valid())
    return sqliteError(db, "export");
  while (query.step() == SQLITE_ROW) {
    llvm::json::Object line{
        {"workload", llvm::json::Object{{"key", query.text(0)},
                                        {"anchor", query.text(15)},
                                        {"flops", query.real(16)},
                                        {"module", query.text(17)}}},
        {"platform", llvm::json::Object{{"name", query.text(1)},
                                        {"target", query.text(18)},
                                        {"threads", query.integer(19)},
                                        {"features", query.text(20)}}},
        {"schedule", query.text(2)},
        {"genome", query.text(3)},
        {"status", query.text(4)},
        {"message", query.text(5)},
        {"min_s", query.real(6)},
        {"median_s", query.real(7)},
        {"max_s", query.real(8)},
        {"repeats", query.integer(9)},
        {"max_error", query.real(10)},
        {"proposer", query.text(11)},
        {"round", query.integer(12)},
        {"codegen", query.integer(14)},
        {"time", query.text(13)}};
    os << llvm::json::Value(std::move(line)) << "\n";
  }
  return llvm::Error::success();
}

llvm::Expected<size_t> TuningDatabase::importJsonLines(llvm::StringRef text) {
  std::vector<TuningRecord> records;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (auto [number, line] : llvm::enumerate(lines)) {
    auto bad = [&, number = number](llvm::Twine why) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "JSON lines import, line " +
                                         llvm::Twine(number + 1) + ": " + why);
    };
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value)
      return bad(llvm::toString(value.takeError()));
    const llvm::json::Object *object = value->getAsObject();
    const llvm::json::Object *workload =
        object ? object->getObject("workload") : nullptr;
    const llvm::json::Object *platform =
        object ? object->getObject("platform") : nullptr;
    if (!workload || !platform || !workload->getString("key") ||
        !platform->getString("name"))
      return bad("a record needs a workload and a platform with names");
    auto string = [](const llvm::json::Object *o, llvm::StringRef field) {
      return o->getString(field).value_or("").str();
    };
    auto number_ = [](const llvm::json::Object *o, llvm::StringRef field) {
      return o->getNumber(field).value_or(0);
    };
    if (llvm::Error error = addWorkload(
            {string(workload, "key"), string(workload, "anchor"),
             number_(workload, "flops"), string(workload, "module")}))
      return std::move(error);
    llvm::Expected<Platform> known = Platform::parse(string(platform, "name"));
    if (!known)
      return known.takeError();
    if (std::optional<HardwareFeatures> features =
            HardwareFeatures::fromJson(string(platform, "features")))
      known->setFeatures(*features);
    if (llvm::Error error = addPlatform(*known))
      return std::move(error);
    TuningRecord record;
    record.workloadKey = string(workload, "key");
    record.platform = string(platform, "name");
    record.schedule = string(object, "schedule");
    record.genome = string(object, "genome");
    record.status = string(object, "status");
    record.message = string(object, "message");
    record.minSeconds = number_(object, "min_s");
    record.medianSeconds = number_(object, "median_s");
    record.maxSeconds = number_(object, "max_s");
    record.repeats = number_(object, "repeats");
    record.maxError = number_(object, "max_error");
    record.proposer = string(object, "proposer");
    record.round = number_(object, "round");
    record.codegen = number_(object, "codegen");
    record.time = string(object, "time");
    records.push_back(std::move(record));
  }
  if (llvm::Error error = addRecords(records))
    return std::move(error);
  return records.size();
}
