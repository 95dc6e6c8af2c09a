// libFuzzer target: the memcached reply parser (see fuzz_targets.h for what is checked).
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string violation = ream::fuzz::MemcachedReplies(data, size);
  if (!violation.empty()) {
    std::fprintf(stderr, "memcached parser contract broken: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
