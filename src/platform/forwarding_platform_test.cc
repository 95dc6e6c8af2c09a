// ForwardingPlatform overrides one call and forwards the rest; FakeClockPlatform's sleeps
// advance its clock instead of waiting.
#include "platform/forwarding_platform.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "platform/clock.h"

namespace ream {
namespace {

class FullDisk : public ForwardingPlatform {
 public:
  using ForwardingPlatform::ForwardingPlatform;
  Status WriteFile(const std::string& path, const std::string&) override {
    ++failed_writes;
    return IoError("write " + path + ": No space left on device");
  }
  int failed_writes = 0;
};

class TempDir {
 public:
  TempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("ream-forwarding-" + std::to_string(MakePosixPlatform()->ProcessId()) + "-" +
            std::to_string(MonotonicNowNs()));
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

TEST(ForwardingPlatform, OverridesOneCallAndForwardsTheRest) {
  TempDir tmp;
  auto real = MakePosixPlatform();
  ASSERT_TRUE(real->WriteFile(tmp.Path("kept"), "before").ok());
  FullDisk p(*real);

  // The overridden call fails with the injected Status and touches nothing.
  Status s = p.WriteFile(tmp.Path("kept"), "after");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("No space left"), std::string::npos);
  EXPECT_EQ(p.failed_writes, 1);
  EXPECT_EQ(*real->ReadFile(tmp.Path("kept")), "before");

  // Everything else reaches the real machine.
  EXPECT_EQ(*p.ReadFile(tmp.Path("kept")), "before");
  ASSERT_TRUE(p.AppendFile(tmp.Path("kept"), "+").ok());
  EXPECT_EQ(*real->ReadFile(tmp.Path("kept")), "before+");
  ASSERT_TRUE(p.RenameFile(tmp.Path("kept"), tmp.Path("moved")).ok());
  EXPECT_FALSE(p.Exists(tmp.Path("kept")));
  EXPECT_TRUE(real->Exists(tmp.Path("moved")));
  ASSERT_TRUE(p.MakeDir(tmp.Path("d")).ok());
  EXPECT_TRUE(real->IsDirectory(tmp.Path("d")));
  auto listed = p.ListDir(tmp.Path(""));
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
  EXPECT_EQ(p.ReadFile(tmp.Path("absent")).status().code(), StatusCode::kNotFound);
  {
    auto stream = p.OpenForWriting(tmp.Path("events"));
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    **stream << "line 1\n" << std::flush;
    EXPECT_EQ(*real->ReadFile(tmp.Path("events")), "line 1\n");  // written as it goes
  }
  EXPECT_EQ(p.OpenForWriting(tmp.Path("no/such/dir/f")).status().code(), StatusCode::kNotFound);
  auto run = p.Run({"sh", "-c", "echo forwarded"}, std::chrono::seconds(5));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->out, "forwarded\n");
  EXPECT_EQ(p.ProcessId(), real->ProcessId());
  int64_t before = real->MonotonicNanos();
  EXPECT_GE(p.MonotonicNanos(), before);
}

TEST(ForwardingPlatform, ForwardsToAFixtureTree) {
  RootedPlatform fake(std::string(REAM_SOURCE_DIR) + "/src/platform/testdata");
  ForwardingPlatform p(fake);
  EXPECT_EQ(p.ProcessId(), 4242);  // the fake's answer, not this process's
  fake.AdvanceNanos(5);
  EXPECT_EQ(p.MonotonicNanos(), 5);
  p.SleepFor(std::chrono::microseconds(3));
  EXPECT_EQ(fake.MonotonicNanos(), 3005);
}

TEST(FakeClockPlatform, SleepAdvancesTheClockWithoutWaiting) {
  auto real = MakePosixPlatform();
  FakeClockPlatform p(*real, 1000);
  int64_t real_start = MonotonicNowNs();
  p.SleepFor(std::chrono::seconds(30));
  p.SleepFor(std::chrono::milliseconds(-5));  // nothing to wait for, not recorded
  p.Advance(std::chrono::nanoseconds(7));
  EXPECT_EQ(p.MonotonicNanos(), 1000 + 30'000'000'000 + 7);
  EXPECT_EQ(p.WallNanos(), p.MonotonicNanos());
  EXPECT_LT(MonotonicNowNs() - real_start, 5'000'000'000);  // did not really sleep 30 s
  ASSERT_EQ(p.sleeps().size(), 1u);
  EXPECT_EQ(p.sleeps()[0], std::chrono::seconds(30));
  // The real clock is untouched; files still come from the target.
  EXPECT_GT(real->MonotonicNanos(), 0);
  EXPECT_TRUE(p.IsDirectory("/proc"));
}

TEST(PosixPlatform, SleepForWaitsAtLeastTheDuration) {
  auto p = MakePosixPlatform();
  int64_t start = p->MonotonicNanos();
  p->SleepFor(std::chrono::milliseconds(20));
  EXPECT_GE(p->MonotonicNanos() - start, 20'000'000);
}

}  // namespace
}  // namespace ream
