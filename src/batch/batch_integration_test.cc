// `ream batch` end to end: every program on a small input exits 0 with its figures in the JSON,
// and the failure exits (unknown name, a failing program, a full disk) say what went wrong.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ream {
namespace {


CommandResult RunReam(const std::vector<std::string>& args) {
  std::vector<std::string> argv{REAM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = MakePosixPlatform()->Run(argv, std::chrono::seconds(120));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : CommandResult{};
}

class BatchRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = "/tmp/ream-batch-it-" + std::to_string(platform_->ProcessId());
    (void)platform_->Run({"rm", "-rf", cache_}, std::chrono::seconds(30));
  }
  void TearDown() override { (void)platform_->Run({"rm", "-rf", cache_}, std::chrono::seconds(30)); }
  std::unique_ptr<Platform> platform_ = MakePosixPlatform();
  std::string cache_;
};

// Each program at a twentieth of its default size (~0.25 s of work): exit 0, and the JSON has
// the wall time, the exit status and the input.
TEST_F(BatchRunTest, EveryProgramRunsBrieflyAndReportsItsFigures) {
  CommandResult list = RunReam({"batch", "--list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto programs = nlohmann::json::parse(list.out);
  ASSERT_GE(programs.size(), 10u);
  for (const auto& p : programs) {
    const std::string name = p["name"];
    CommandResult r = RunReam({"batch", name, "--seconds", "0.25", "--json", "--cache", cache_});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["name"], name);
    EXPECT_EQ(j["exit"], 0);
    EXPECT_GT(j["seconds"].get<double>(), 0.0) << name;
    EXPECT_LT(j["seconds"].get<double>(), 20.0) << name;
    if (!j["input"].is_null()) {
      EXPECT_EQ(j["input"].get<std::string>().rfind(cache_ + "/" + name + "-1-", 0), 0u) << j.dump();
      EXPECT_GT(j["input_bytes"].get<uint64_t>(), 0u) << name;
    }
  }
}

TEST_F(BatchRunTest, UnknownNameIsBadInputListingTheNames) {
  CommandResult r = RunReam({"batch", "nosuch", "--cache", cache_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gnugo"), std::string::npos) << r.err;
}

// A cached input the program cannot solve (no arc from the supply to the demand): exit 1 with its exit status and its stderr's last lines.
TEST_F(BatchRunTest, FailingProgramExitsOneWithItsStderr) {
  CommandResult prep = RunReam({"batch", "mcf", "--seconds", "0.05", "--prepare", "--json", "--cache", cache_});
  ASSERT_EQ(prep.exit_code, 0) << prep.err;
  std::string dir = nlohmann::json::parse(prep.out)["input"];
  ASSERT_TRUE(platform_->WriteFile(dir + "/network.min", "p min 2 1\nn 1 5\nn 2 -5\na 2 1 0 9 1\n").ok());
  CommandResult r = RunReam({"batch", "mcf", "--seconds", "0.05", "--cache", cache_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exited with status 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ream-mcf: no optimal flow (infeasible)"), std::string::npos) << r.err;
}

// A cache on a 256 KiB tmpfs cannot hold x264's frames: exit 1 naming the path, nothing left.
TEST_F(BatchRunTest, FullDiskExitsOneAndLeavesNoPartialInput) {
  if (platform_->EffectiveUserId() != 0) GTEST_SKIP() << "needs root to mount a tmpfs";
  ASSERT_EQ(platform_->Run({"mkdir", "-p", cache_}, std::chrono::seconds(5))->exit_code, 0);
  auto mount = platform_->Run({"mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", cache_}, std::chrono::seconds(10));
  ASSERT_TRUE(mount.ok() && mount->exit_code == 0) << (mount.ok() ? mount->err : mount.status().ToString());
  CommandResult r = RunReam({"batch", "x264", "--seconds", "0.5", "--prepare", "--cache", cache_});
  auto left = platform_->ListDir(cache_);
  (void)platform_->Run({"umount", cache_}, std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(cache_ + "/x264-1-"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << left->front().name;
}

}  // namespace
}  // namespace ream
