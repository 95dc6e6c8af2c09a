// Errors as values: Status for operations that return nothing, Result<T> for those that do.
// No exceptions cross a layer boundary; errno becomes a Status in platform/ only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ream {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the user's input is wrong (flag, spec, value)
  kNotFound,         // a file, device, process or key that should exist does not
  kAlreadyExists,
  kPermissionDenied,
  kUnsupported,      // the machine or kernel cannot do this (reason in the message)
  kUnavailable,      // a peer/server is unreachable or went away
  kIoError,          // reading or writing failed
  kTimeout,
  kCorrupt,          // malformed data (a frame, a file, a database)
  kCancelled,        // interrupted by the user (SIGINT/SIGTERM)
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid argument: --qps must be > 0"
  std::string ToString() const;

  // Prefixes the message with context: "reading /sys/...: <message>". No-op when ok.
  Status Annotate(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status Corrupt(std::string m) { return {StatusCode::kCorrupt, std::move(m)}; }
inline Status Timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
inline Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Maps an errno value to a Status whose message names the operation and the errno text.
Status ErrnoStatus(int err, std::string_view what);

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T value_or(T fallback) const { return ok() ? value() : fallback; }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ream

#define REAM_CONCAT_INNER(a, b) a##b
#define REAM_CONCAT(a, b) REAM_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when it is not ok.
#define REAM_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::ream::Status ream_status_ = (expr);     \
    if (!ream_status_.ok()) return ream_status_; \
  } while (0)

// `REAM_ASSIGN_OR_RETURN(auto x, F());` — declares x from a Result or returns its Status.
#define REAM_ASSIGN_OR_RETURN(lhs, expr) \
  REAM_ASSIGN_OR_RETURN_IMPL(REAM_CONCAT(ream_result_, __LINE__), lhs, expr)
#define REAM_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
