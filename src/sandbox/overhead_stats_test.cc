// ReadOverheadStats over a directory of per-process files, and the statsdir state entry.
#include "sandbox/overhead_stats.h"

#include <gtest/gtest.h>

#include "sandbox/state.h"

namespace ream {
namespace {

class OverheadStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = MakePosixPlatform();
    dir_ = "/tmp/ream-" + std::to_string(p_->ProcessId()) + "-stats.overhead";
    ASSERT_TRUE(p_->MakeDir(dir_).ok());
  }
  void TearDown() override { (void)RemoveStateObject(*p_, {"statsdir", dir_}); }
  std::unique_ptr<Platform> p_;
  std::string dir_;
};

TEST_F(OverheadStatsTest, SumsTheProcessesOfTheWorkload) {
  ASSERT_TRUE(p_->WriteFile(dir_ + "/10.json",
                            R"({"pid":10,"mode":"calls","requested_ns":20000,"messages":4,)"
                            R"("cpu_ns":84000,"wall_ns":90000})" "\n").ok());
  ASSERT_TRUE(p_->WriteFile(dir_ + "/11.json",
                            R"({"pid":11,"mode":"calls","requested_ns":20000,"messages":6,)"
                            R"("cpu_ns":126000,"wall_ns":130000})" "\n").ok());
  ASSERT_TRUE(p_->WriteFile(dir_ + "/12.tmp", "half-written").ok());  // not yet renamed: skipped
  auto s = ReadOverheadStats(*p_, dir_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->processes, 2);
  EXPECT_EQ(s->messages, 10);
  EXPECT_EQ(s->cpu_ns, 210000);
  EXPECT_EQ(s->wall_ns, 220000);
  EXPECT_EQ(s->requested_ns, 20000);
  EXPECT_EQ(s->mode, "calls");
  EXPECT_DOUBLE_EQ(s->cpu_per_message_ns(), 21000.0);
}

TEST_F(OverheadStatsTest, NoFileIsNotFoundAndABadOneIsCorrupt) {
  EXPECT_EQ(ReadOverheadStats(*p_, dir_).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(p_->WriteFile(dir_ + "/10.json", "{\"pid\":10}").ok());
  auto s = ReadOverheadStats(*p_, dir_);
  EXPECT_EQ(s.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(s.status().message().find("10.json"), std::string::npos);
}

TEST_F(OverheadStatsTest, TheStateEntryRemovesTheDirectoryAndOnlyReamOnes) {
  ASSERT_TRUE(p_->WriteFile(dir_ + "/10.json", "{}").ok());
  EXPECT_TRUE(RemoveStateObject(*p_, {"statsdir", dir_}).ok());
  EXPECT_FALSE(p_->Exists(dir_));
  EXPECT_TRUE(RemoveStateObject(*p_, {"statsdir", dir_}).ok());  // already gone: fine
  EXPECT_EQ(RemoveStateObject(*p_, {"statsdir", "/tmp"}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ream
