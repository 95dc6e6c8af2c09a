// Line-delimited messages on this process's own stdin and stdout, for `ream agent`, which the
// coordinator speaks to over an ssh session's pipes only: a read with a timeout that tells
// end-of-file (the session closed: the agent exits) from silence, and a write of one whole line.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "platform/status.h"

namespace ream {

class StdinLines {
 public:
  // The next line (without its '\n'); nullopt at end-of-file; Timeout when no complete line
  // came within `timeout`; the errno of a failed read otherwise.
  Result<std::optional<std::string>> Next(std::chrono::milliseconds timeout);
  // The file descriptor (0), for LoadOptions::cancel_fd: readable at end-of-file too.
  int fd() const { return 0; }
  // Lines already read from the pipe but not yet returned (a readable fd says nothing then).
  bool buffered() const { return buffer_.find('\n') != std::string::npos; }

 private:
  std::string buffer_;
  bool eof_ = false;
};

// Writes `line` and '\n' to stdout in one write(2) loop, unbuffered (the other end is waiting
// for it). Unavailable when stdout is closed (the session dropped).
Status WriteStdoutLine(const std::string& line);

}  // namespace ream
