#include "store/sqlite.h"

#include <sqlite3.h>

#include <cstdio>
#include <utility>

namespace ream::sql {
namespace {

// SQLite's "database or disk is full" does not say which: here the disk (ream sets no page
// limit), and SQLite rolled the transaction back, so nothing half-written is left.
constexpr const char* kFullNote = " (no space left on the file system holding it; nothing of this write was kept)";

}  // namespace

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_), stmt_(std::exchange(o.stmt_, nullptr)), path_(std::move(o.path_)),
      bind_error_(std::move(o.bind_error_)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = std::exchange(o.stmt_, nullptr);
    path_ = std::move(o.path_);
    bind_error_ = std::move(o.bind_error_);
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Status Statement::Error(std::string_view what) const {
  std::string msg = std::string(what) + " in " + path_ + ": " + (db_ ? sqlite3_errmsg(db_) : "no database");
  int code = db_ ? sqlite3_errcode(db_) : SQLITE_ERROR;
  if (code == SQLITE_FULL) msg += kFullNote;
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return Corrupt(msg);
  if (code == SQLITE_CONSTRAINT) return {StatusCode::kAlreadyExists, msg};
  return IoError(msg);
}

#define REAM_SQL_BIND(call)                                              \
  do {                                                                   \
    if ((call) != SQLITE_OK && bind_error_.ok()) bind_error_ = Error("binding a parameter"); \
  } while (0)

Statement& Statement::Bind(int i, int64_t v) {
  REAM_SQL_BIND(sqlite3_bind_int64(stmt_, i, v));
  return *this;
}
Statement& Statement::Bind(int i, double v) {
  REAM_SQL_BIND(sqlite3_bind_double(stmt_, i, v));
  return *this;
}
Statement& Statement::Bind(int i, std::string_view v) {
  REAM_SQL_BIND(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::BindNull(int i) {
  REAM_SQL_BIND(sqlite3_bind_null(stmt_, i));
  return *this;
}
Statement& Statement::Bind(int i, const std::optional<double>& v) {
  return v ? Bind(i, *v) : BindNull(i);
}
Statement& Statement::Bind(int i, const std::optional<int64_t>& v) {
  return v ? Bind(i, *v) : BindNull(i);
}
Statement& Statement::Bind(int i, const std::optional<std::string>& v) {
  return v ? Bind(i, std::string_view(*v)) : BindNull(i);
}

Statement& Statement::BindColumn(int i, const Statement& src, int col) {
  REAM_SQL_BIND(sqlite3_bind_value(stmt_, i, sqlite3_column_value(src.stmt_, col)));
  return *this;
}

Result<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The statement's head names it ("INSERT INTO points (run_id, ..."); its whole column list
  // would bury the cause at the end of a long line.
  std::string sql = sqlite3_sql(stmt_);
  if (sql.size() > 72) sql = sql.substr(0, 64) + " ...";
  return Error("executing '" + sql + "'");
}

Status Statement::Run() {
  auto r = Step();
  if (!r.ok()) return r.status();
  return Status::Ok();
}

Status Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = Status::Ok();
  return Status::Ok();
}

bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  if (!t) return {};
  return std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}
std::optional<double> Statement::OptDouble(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Double(col);
}
std::optional<int64_t> Statement::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}
std::optional<std::string> Statement::OptText(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Text(col);
}

std::string Statement::ExactValue(int col) const {
  switch (sqlite3_column_type(stmt_, col)) {
    case SQLITE_NULL:
      return "n;";
    case SQLITE_INTEGER:
      return "i" + std::to_string(Int(col)) + ";";
    case SQLITE_FLOAT: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "r%a;", Double(col));
      return buf;
    }
    case SQLITE_BLOB: {
      const void* b = sqlite3_column_blob(stmt_, col);
      const size_t n = static_cast<size_t>(sqlite3_column_bytes(stmt_, col));
      return "b" + std::to_string(n) + ":" + (b ? std::string(static_cast<const char*>(b), n) : std::string());
    }
    default: {
      std::string t = Text(col);
      return "t" + std::to_string(t.size()) + ":" + t;
    }
  }
}

Database::Database(Database&& o) noexcept : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Result<Database> Database::Open(const std::string& path, bool create, bool read_only) {
  Database d;
  d.path_ = path;
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  // A path through a symbolic link is refused (by SQLite itself, so no check can race the
  // open): a link planted where a database is expected must not redirect hours of results,
  // or their journal, somewhere else. SQLite creates the file 0644: no group/other write.
  flags |= SQLITE_OPEN_NOFOLLOW;
  int rc = sqlite3_open_v2(path.c_str(), &d.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = d.db_ ? sqlite3_errmsg(d.db_) : "out of memory";
    if (d.db_ && sqlite3_extended_errcode(d.db_) == SQLITE_CANTOPEN_SYMLINK) {
      return InvalidArgument("refusing results database " + path +
                             ": it is a symbolic link or its path goes through one; give the real "
                             "path (realpath " + path + ")");
    }
    if (!create && rc == SQLITE_CANTOPEN) {
      return NotFound("cannot open results database " + path + ": " + msg +
                      " (does it exist? 'ream run' creates it)");
    }
    return IoError("cannot open results database " + path + ": " + msg);
  }
  sqlite3_busy_timeout(d.db_, 10000);
  sqlite3_extended_result_codes(d.db_, 0);
  return d;
}

Result<Database> Database::CopyIntoMemory(Database& source) {
  Database d;
  d.path_ = source.path_;
  int rc = sqlite3_open_v2(":memory:", &d.db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
  if (rc != SQLITE_OK) return IoError("cannot open an in-memory copy of " + source.path_);
  sqlite3_extended_result_codes(d.db_, 0);
  sqlite3_backup* b = sqlite3_backup_init(d.db_, "main", source.db_, "main");
  if (!b) return IoError("copying " + source.path_ + " into memory: " + sqlite3_errmsg(d.db_));
  rc = sqlite3_backup_step(b, -1);
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE) {
    std::string full = "copying " + source.path_ + " into memory: " + sqlite3_errstr(rc);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) return Corrupt(full);
    return IoError(full);
  }
  return d;
}

Status Database::Exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    std::string full = "SQL error in " + path_ + ": " + msg;
    if (rc == SQLITE_FULL) full += kFullNote;
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) return Corrupt(full);
    return IoError(full);
  }
  return Status::Ok();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    std::string full = "preparing SQL in " + path_ + ": " + sqlite3_errmsg(db_);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) return Corrupt(full);
    return IoError(full);
  }
  return Statement(db_, stmt, path_);
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Database::Changes() const { return sqlite3_changes(db_); }

Transaction::Transaction(Database& db) : db_(db) { begin_ = db_.Exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_ && begin_.ok()) (void)db_.Exec("ROLLBACK");
}

Status Transaction::Commit() {
  if (!begin_.ok()) return begin_;
  Status s = db_.Exec("COMMIT");
  if (s.ok()) done_ = true;
  return s;
}

}  // namespace ream::sql
