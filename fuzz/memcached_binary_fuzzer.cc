// libFuzzer target: the memcached binary reply parser (see fuzz_targets.h for what is checked).
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string violation = ream::fuzz::MemcachedBinaryReplies(data, size);
  if (!violation.empty()) {
    std::fprintf(stderr, "memcached binary parser contract broken: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
