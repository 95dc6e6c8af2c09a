// A scratch file written with direct I/O (O_DIRECT), for ream's disk source of interference
// (pressure/): the writes reach the device instead of the page cache, so their rate is the
// device's. The file is unlinked as soon as it is open, so nothing is left behind however ream
// ends (a crash or SIGKILL included); the space is freed when the descriptor closes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "platform/status.h"

namespace ream {

class DirectIoFile {
 public:
  // Writes go in blocks of this size from a buffer aligned to it (O_DIRECT's alignment rule).
  static constexpr size_t kBlockBytes = 1 << 20;

  // Creates an unlinked scratch file in `dir` of `size_bytes` (rounded up to whole blocks) that
  // writes wrap around. PermissionDenied / NotFound naming `dir` when it cannot be written;
  // Unsupported when its file system refuses O_DIRECT (tmpfs); the errno otherwise.
  static Result<std::unique_ptr<DirectIoFile>> Create(const std::string& dir, uint64_t size_bytes);
  ~DirectIoFile();
  DirectIoFile(const DirectIoFile&) = delete;
  DirectIoFile& operator=(const DirectIoFile&) = delete;

  // Writes the next block (pwrite, wrapping at the file's end). The errno as IoError otherwise.
  Status WriteBlock();
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  DirectIoFile(int fd, uint64_t size_bytes, char* buffer);
  int fd_;
  uint64_t size_bytes_;
  char* buffer_;
  uint64_t offset_ = 0;
  uint64_t bytes_written_ = 0;
};

// This process's storage I/O so far (/proc/self/io: read_bytes, write_bytes): what reached the
// block layer, not what passed through the page cache. NotFound where the kernel keeps no I/O
// accounting (CONFIG_TASK_IO_ACCOUNTING off).
struct ProcessIoBytes {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};
Result<ProcessIoBytes> ReadProcessIoBytes();

}  // namespace ream
