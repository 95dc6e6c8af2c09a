// Spec texts and a refusal check shared by the parser's tests (spec/spec_test.cc) and the tests
// of what the experiment makes of a parsed spec (experiment/spec_plan_test.cc). Tests only.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "spec/spec.h"

namespace ream::spec_texts {

// The smallest spec: a builtin server and two load levels; everything else at its default.
inline const char* const kMinimal = R"(name = "t"
[workload]
builtin = "kv"
[sweep]
qps = [1000, 2000]
)";

// A video stream's sessions over HTTP, without its levels.
inline const char* const kStreamSpec = R"(name = "s"
node = true
[workload]
builtin = "stream"
[load]
http_path = "/video/{key}.bin"
chunk_bytes = "256k"
bitrate = "8mbit"
session_chunks = 4
[sweep]
axis = "sessions"
)";

// A batch subject: copies of Debian's xz as its load, two CPU quotas.
inline const char* const kBatch = R"(name = "b"
[workload]
batch = "xz"
batch_seconds = 2
[load]
warmup = "1s"
duration = "6s"
[sweep]
copies = [2, 1]
[partitions]
cpu_quota = ["100%", "50%"]
)";

// The message that refuses `text` (a failed expectation when it is accepted).
inline std::string Err(const std::string& text) {
  auto r = ParseSpec(text, "x.toml");
  EXPECT_FALSE(r.ok()) << "spec was accepted:\n" << text;
  return r.ok() ? "" : r.status().message();
}

}  // namespace ream::spec_texts
