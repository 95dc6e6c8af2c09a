// libFuzzer target: a stored histogram blob (Histogram::Decode); see result_targets.h for what is checked.
#include <cstdio>
#include <cstdlib>

#include "fuzz/result_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string violation = ream::fuzz::HistogramBlob(data, size);
  if (!violation.empty()) {
    std::fprintf(stderr, "histogram decoder contract broken: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
