// A thin RAII wrapper over SQLite's C API: a connection, prepared statements with typed
// binds and column reads, and a transaction guard. Every failure becomes a Status naming the
// database file and SQLite's message. No exceptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ream::sql {

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string path) : db_(db), stmt_(stmt), path_(std::move(path)) {}
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&& o) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds are 1-based, as in SQLite. A nullopt binds NULL.
  Statement& Bind(int index, int64_t v);
  Statement& Bind(int index, double v);
  Statement& Bind(int index, std::string_view v);
  Statement& Bind(int index, const char* v) { return Bind(index, std::string_view(v)); }
  Statement& Bind(int index, const std::string& v) { return Bind(index, std::string_view(v)); }
  Statement& BindNull(int index);
  Statement& Bind(int index, const std::optional<double>& v);
  Statement& Bind(int index, const std::optional<int64_t>& v);
  Statement& Bind(int index, const std::optional<std::string>& v);
  // Binds parameter `index` to column `col` of `src`'s current row with its stored type and
  // value (INTEGER, REAL, TEXT, BLOB or NULL): rows copied between databases (ream merge) come
  // out as they went in, with no trip through text.
  Statement& BindColumn(int index, const Statement& src, int col);

  // Step(): true when a row is available, false when done; the Status on error.
  Result<bool> Step();
  // Runs a statement that returns no rows (or ignores them).
  Status Run();
  Status Reset();

  bool IsNull(int col) const;
  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  std::optional<double> OptDouble(int col) const;
  std::optional<int64_t> OptInt(int col) const;
  std::optional<std::string> OptText(int col) const;
  // Column `col` of the current row, its type and its exact value as text ("n;" for NULL,
  // "i42;", "r0x1.8p+1;", "t5:hello", "b..."): two rows compare equal by these exactly when
  // SQLite holds the same values, with no rounding of a REAL.
  std::string ExactValue(int col) const;

 private:
  Status Error(std::string_view what) const;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string path_;
  Status bind_error_;
};

class Database {
 public:
  Database() = default;
  Database(Database&& o) noexcept;
  Database& operator=(Database&& o) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Opens (creating when `create`) the database at `path`. NotFound when it does not exist
  // and `create` is false; IoError/Corrupt with SQLite's message otherwise.
  static Result<Database> Open(const std::string& path, bool create, bool read_only);
  // A private in-memory copy of `source` (SQLite's online backup), writable without touching
  // the file; path() stays source's path, for messages. The errors of Open and of the copy.
  static Result<Database> CopyIntoMemory(Database& source);

  Status Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  int64_t LastInsertId() const;
  int Changes() const;
  const std::string& path() const { return path_; }
  bool is_open() const { return db_ != nullptr; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  const Status& begin_status() const { return begin_; }
  Status Commit();

 private:
  Database& db_;
  Status begin_;
  bool done_ = false;
};

}  // namespace ream::sql
