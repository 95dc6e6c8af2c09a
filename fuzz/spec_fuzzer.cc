// libFuzzer target: the experiment spec (TOML -> spec) and its value parsers (see
// spec_targets.h for what is checked): SpecInput's first byte picks the spec's TOML or a
// value parser.
#include <cstdio>
#include <cstdlib>

#include "fuzz/spec_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string violation = ream::fuzz::SpecInput(data, size);
  if (!violation.empty()) {
    std::fprintf(stderr, "spec parser contract broken: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
