// StdinLines and WriteStdoutLine on fds 0 and 1 (platform/stdio_lines.h).
#include "platform/stdio_lines.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace ream {

Result<std::optional<std::string>> StdinLines::Next(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return std::optional<std::string>(std::move(line));
    }
    if (eof_) {
      if (buffer_.empty()) return std::optional<std::string>();
      std::string last = std::move(buffer_);
      buffer_.clear();
      return std::optional<std::string>(std::move(last));
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Timeout("no line on stdin within " + std::to_string(timeout.count()) + " ms");
    struct pollfd pfd = {0, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus(errno, "poll on stdin");
    if (r == 0) continue;
    char buf[65536];
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return ErrnoStatus(errno, "reading stdin");
    if (n == 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

Status WriteStdoutLine(const std::string& line) {
  std::string all = line + "\n";
  size_t done = 0;
  while (done < all.size()) {
    ssize_t n = ::write(1, all.data() + done, all.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) return Unavailable("stdout is closed (the session dropped)");
    if (n < 0) return ErrnoStatus(errno, "writing stdout");
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace ream
