#include "sandbox/null_sandbox.h"

#include <gtest/gtest.h>

namespace ream {
namespace {

TEST(NullSandbox, RunsAPlainChildAndStopsIt) {
  auto platform = MakePosixPlatform();
  auto kind = MakeNullSandboxKind(*platform);
  EXPECT_EQ(kind->name(), "null");
  SandboxOptions o;
  o.capture_stdout = true;
  o.partition.cpus = "0";
  auto sb = kind->Start(o, {"sh", "-c", "echo ready $REAM_NODE_ADDRESS; exec sleep 30"});
  ASSERT_TRUE(sb.ok()) << sb.status().message();
  auto line = (*sb)->WaitForLine(StartsWith("ready"), std::chrono::milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(*line, "ready 127.0.0.1");
  EXPECT_EQ((*sb)->address(), "127.0.0.1");
  EXPECT_EQ((*sb)->cpus(), std::vector<int>{0});  // recorded as asked
  EXPECT_TRUE((*sb)->Alive());
  EXPECT_EQ((*sb)->monitor_target().cgroup, nullptr);
  EXPECT_NE((*sb)->monitor_target().unavailable_reason.find("null sandbox"), std::string::npos);
  ASSERT_TRUE((*sb)->Stop().ok());
  EXPECT_FALSE((*sb)->Alive());
  EXPECT_EQ((*sb)->ExitDescription(), "killed by signal 15 (SIGTERM)");
}

TEST(NullSandbox, RefusesAKnobItCannotEnforce) {
  auto platform = MakePosixPlatform();
  auto kind = MakeNullSandboxKind(*platform);
  SandboxOptions o;
  o.partition.memory_bytes = 1 << 20;
  auto sb = kind->Start(o, {"true"});
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sb.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(sb.status().message().find("memory"), std::string::npos) << sb.status().message();
  for (const auto& k : kind->Support()) EXPECT_FALSE(k.enforceable) << k.flag;
  EXPECT_TRUE(kind->Probe().empty());
}

}  // namespace
}  // namespace ream
