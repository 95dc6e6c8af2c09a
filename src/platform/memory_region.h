// Anonymous memory made resident on request, for ream's memory source of interference
// (pressure/): mapped once, then populated chunk by chunk (MADV_POPULATE_WRITE, in transparent
// huge pages where the kernel gives them) so the source can stop between chunks. A page fault per
// 4 KiB page reached about 250 MB/s on this VM, too slow to set a resident set in a second.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "platform/status.h"

namespace ream {

class MemoryRegion {
 public:
  // Maps `bytes` of private anonymous memory (not yet resident). The mmap errno otherwise.
  static Result<std::unique_ptr<MemoryRegion>> Map(size_t bytes);
  ~MemoryRegion();  // unmaps
  MemoryRegion(const MemoryRegion&) = delete;
  MemoryRegion& operator=(const MemoryRegion&) = delete;

  // Makes [offset, offset + length) resident and written (MADV_POPULATE_WRITE; where the
  // kernel lacks it, a write to every page). The madvise errno otherwise (ENOMEM: no memory).
  Status Populate(size_t offset, size_t length);
  size_t size() const { return size_; }

 private:
  MemoryRegion(char* base, size_t size) : base_(base), size_(size) {}
  char* base_;
  size_t size_;
};

}  // namespace ream
