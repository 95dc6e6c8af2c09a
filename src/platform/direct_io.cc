// DirectIoFile and ReadProcessIoBytes (platform/direct_io.h).
#include "platform/direct_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ream {

Result<std::unique_ptr<DirectIoFile>> DirectIoFile::Create(const std::string& dir, uint64_t size_bytes) {
  std::string path = dir + "/ream-pressure-XXXXXX";
  int fd = mkostemp(path.data(), O_DIRECT);
  if (fd < 0) {
    int err = errno;
    if (err == EINVAL) {
      return Unsupported("cannot open a direct-I/O (O_DIRECT) file in " + dir +
                         ": its file system refuses O_DIRECT (tmpfs does); give a directory on a disk");
    }
    Status s = ErrnoStatus(err, "creating a scratch file in " + dir);
    return Status(s.code(), s.message() + "; give a writable directory on the disk to pressure");
  }
  // Unlinked at once: the space is the open descriptor's and goes with it, whatever ends ream.
  unlink(path.c_str());
  void* buf = nullptr;
  if (posix_memalign(&buf, kBlockBytes, kBlockBytes) != 0) {
    close(fd);
    return Internal("cannot allocate an aligned buffer for direct I/O");
  }
  // Non-zero, varying content, so no layer below can treat the blocks as holes.
  auto* bytes = static_cast<unsigned char*>(buf);
  for (size_t i = 0; i < kBlockBytes; ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  uint64_t blocks = (size_bytes + kBlockBytes - 1) / kBlockBytes;
  if (blocks == 0) blocks = 1;
  return std::unique_ptr<DirectIoFile>(new DirectIoFile(fd, blocks * kBlockBytes, static_cast<char*>(buf)));
}

DirectIoFile::DirectIoFile(int fd, uint64_t size_bytes, char* buffer)
    : fd_(fd), size_bytes_(size_bytes), buffer_(buffer) {}

DirectIoFile::~DirectIoFile() {
  close(fd_);
  free(buffer_);
}

Status DirectIoFile::WriteBlock() {
  ssize_t n = pwrite(fd_, buffer_, kBlockBytes, static_cast<off_t>(offset_));
  if (n < 0) return ErrnoStatus(errno, "direct-I/O write");
  bytes_written_ += static_cast<uint64_t>(n);
  offset_ += kBlockBytes;
  if (offset_ >= size_bytes_) offset_ = 0;
  return Status::Ok();
}

Result<ProcessIoBytes> ReadProcessIoBytes() {
  std::ifstream in("/proc/self/io");
  if (!in) return NotFound("/proc/self/io is absent: the kernel keeps no per-process I/O accounting");
  ProcessIoBytes io;
  std::string key;
  uint64_t value = 0;
  bool read = false, write = false;
  while (in >> key >> value) {
    if (key == "read_bytes:") io.read_bytes = value, read = true;
    if (key == "write_bytes:") io.write_bytes = value, write = true;
  }
  if (!read || !write) return NotFound("/proc/self/io has no read_bytes/write_bytes");
  return io;
}

}  // namespace ream
