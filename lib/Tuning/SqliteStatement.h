//===- SqliteStatement.h - Prepared SQLite statements -----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Private to the tuning database (Database.cpp): SQLite's C API as a
// prepared statement that finalizes itself, and its errors as llvm::Error.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_SQLITESTATEMENT_H
#define TCL_LIB_TUNING_SQLITESTATEMENT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <sqlite3.h>
#include <string>

namespace mlir::tcl::sqlite {

inline llvm::Error sqliteError(sqlite3 *db, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tuning database: " + what + ": " +
                                     sqlite3_errmsg(db));
}

/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql) {
    if (sqlite3_prepare_v2(db, sql.data(), sql.size(), &stmt, nullptr) !=
        SQLITE_OK)
      stmt = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt); }
  bool valid() const { return stmt != nullptr; }
  Statement &bind(int index, llvm::StringRef text) {
    sqlite3_bind_text(stmt, index, text.data(), text.size(), SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int index, double value) {
    sqlite3_bind_double(stmt, index, value);
    return *this;
  }
  Statement &bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt, index, value);
    return *this;
  }
  /// Makes the statement ready to run again with new bindings.
  void reset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(stmt); }
  std::string text(int column) const {
    const unsigned char *value = sqlite3_column_text(stmt, column);
    return value ? reinterpret_cast<const char *>(value) : "";
  }
  double real(int column) const { return sqlite3_column_double(stmt, column); }
  int64_t integer(int column) const {
    return sqlite3_column_int64(stmt, column);
  }

private:
  sqlite3_stmt *stmt = nullptr;
};

} // namespace mlir::tcl::sqlite

#endif // TCL_LIB_TUNING_SQLITESTATEMENT_H
