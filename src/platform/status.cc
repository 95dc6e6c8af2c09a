// Status formatting and errno mapping: the one place errno becomes an error value.
#include "platform/status.h"

#include <cerrno>
#include <cstring>

namespace ream {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kAlreadyExists: return "already exists";
    case StatusCode::kPermissionDenied: return "permission denied";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kTimeout: return "timeout";
    case StatusCode::kCorrupt: return "corrupt data";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status Status::Annotate(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_);
}

Status ErrnoStatus(int err, std::string_view what) {
  std::string msg = std::string(what) + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ESRCH:
      return {StatusCode::kNotFound, msg};
    case EEXIST:
      return {StatusCode::kAlreadyExists, msg};
    case EACCES:
    case EPERM:
    case EROFS:
      return {StatusCode::kPermissionDenied, msg};
    case EINVAL:
      return {StatusCode::kInvalidArgument, msg};
    case ENOSYS:
    case EOPNOTSUPP:  // == ENOTSUP on Linux
      return {StatusCode::kUnsupported, msg};
    case ETIMEDOUT:
      return {StatusCode::kTimeout, msg};
    case ECONNREFUSED:
    case ECONNRESET:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EPIPE:
      return {StatusCode::kUnavailable, msg};
    case EINTR:
      return {StatusCode::kCancelled, msg};
    default:
      return {StatusCode::kIoError, msg};
  }
}

}  // namespace ream
