// MemoryRegion (platform/memory_region.h).
#include "platform/memory_region.h"

#include <sys/mman.h>

#include <cerrno>

namespace ream {

Result<std::unique_ptr<MemoryRegion>> MemoryRegion::Map(size_t bytes) {
  if (bytes == 0) bytes = 1;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return ErrnoStatus(errno, "mapping " + std::to_string(bytes) + " bytes of memory");
  // Huge pages where the kernel's THP mode is "madvise": fewer faults, faster to populate.
  (void)madvise(p, bytes, MADV_HUGEPAGE);
  return std::unique_ptr<MemoryRegion>(new MemoryRegion(static_cast<char*>(p), bytes));
}

MemoryRegion::~MemoryRegion() { munmap(base_, size_); }

Status MemoryRegion::Populate(size_t offset, size_t length) {
  if (offset >= size_) return Status::Ok();
  if (length > size_ - offset) length = size_ - offset;
  // madvise needs a page-aligned start.
  size_t start = offset & ~size_t{4095};
  length += offset - start;
#ifdef MADV_POPULATE_WRITE
  if (madvise(base_ + start, length, MADV_POPULATE_WRITE) == 0) return Status::Ok();
  if (errno != EINVAL) return ErrnoStatus(errno, "populating memory (MADV_POPULATE_WRITE)");
#endif
  for (size_t o = start; o < start + length; o += 4096) base_[o] = 1;
  return Status::Ok();
}

}  // namespace ream
