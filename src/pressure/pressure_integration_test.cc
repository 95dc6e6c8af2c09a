// Every source run for real through `ream pressure` for about a second at a low and a high dial
// (25 and 100 %; 10 and 40 % for memory): the achieved pressure must rise with the dial where this
// machine can measure it (a four-to-one comparison, robust to a noisy shared host), and bad input
// and SIGTERM must leave nothing behind.
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "partition/cgroup.h"
#include "partition/cgroup_knobs.h"
#include "platform/platform.h"

namespace ream {
namespace {

CommandResult RunReam(const std::vector<std::string>& args, int timeout_s = 120) {
  std::vector<std::string> argv{REAM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = MakePosixPlatform()->Run(argv, std::chrono::seconds(timeout_s));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : CommandResult{};
}

// The JSON object `ream pressure --json` prints last (after its ready line).
nlohmann::json LastJson(const std::string& out) {
  size_t end = out.find_last_not_of('\n');
  size_t begin = out.rfind('\n', end);
  return nlohmann::json::parse(out.substr(begin == std::string::npos ? 0 : begin + 1, end + 1));
}

class PressureRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/var/tmp/ream-pressure-it-" + std::to_string(p_->ProcessId());
    ASSERT_TRUE(p_->MakeDir(dir_).ok());
  }
  void TearDown() override { (void)p_->Run({"rm", "-rf", dir_}, std::chrono::seconds(30)); }
  nlohmann::json Run(const std::string& source, int intensity) {
    CommandResult r = RunReam({"pressure", source, "--intensity", std::to_string(intensity), "--seconds", "1",
                               "--json", "--dir", dir_});
    EXPECT_EQ(r.exit_code, 0) << source << ": " << r.err;
    EXPECT_NE(r.out.find("pressure ready: " + source), std::string::npos) << r.out;
    return r.exit_code == 0 ? LastJson(r.out) : nlohmann::json::object();
  }
  std::unique_ptr<Platform> p_ = MakePosixPlatform();
  std::string dir_;
};

TEST_F(PressureRun, AchievedPressureRisesWithTheDial) {
  for (const std::string source : {"cpu", "mem_bw", "memory", "disk", "net"}) {
    // The memory source's full scale is a quarter of MemAvailable, resident (about 6 GB and 10 s
    // to build here): its dial is compared at 10 and 40 %, the same four times apart.
    const bool memory = source == "memory";
    nlohmann::json low = Run(source, memory ? 10 : 25), high = Run(source, memory ? 40 : 100);
    ASSERT_TRUE(low["achieved_percent"].is_number()) << source << ": " << low.dump();
    ASSERT_TRUE(high["achieved_percent"].is_number()) << source << ": " << high.dump();
    const double l = low["achieved_percent"], h = high["achieved_percent"];
    EXPECT_GT(l, memory ? 2.0 : 5.0) << source << ": the low dial achieved nothing: " << low.dump();
    // A disk that sustains less than its start rate sets the pressure itself at 100 % (the writer
    // falls behind and says so); the dial must then still have paced the 25 % run, and the device
    // must have taken at least as much unpaced.
    if (source == "disk" && high["details"].value("device_bound", false)) {
      ASSERT_FALSE(low["details"].value("device_bound", false)) << "the disk sustained less than a quarter "
                                                                   "of its start rate: " << low.dump();
      EXPECT_NEAR(l, 25.0, 5.0) << low.dump();
      EXPECT_GT(h, 0.9 * l) << "device-bound at 100 %: " << high.dump() << " against 25 %: " << low.dump();
      continue;
    }
    // Nominally four times apart: at least 1.5 times on any host that lets the source run at all.
    EXPECT_GT(h, 1.5 * l) << source << ": the low dial achieved " << l << ", the high one " << h;
    if (source == "disk") {
      EXPECT_FALSE(low["details"].value("device_bound", true)) << low.dump();
    }
  }
  // The directory the disk source wrote in holds nothing afterwards (its file was unlinked).
  auto left = p_->ListDir(dir_);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

// A device slower than the rate calibrated at start: the kernel's own write throttle on the
// source's cgroup, set once the source is ready (after its calibration). The writer falls behind
// its pace, and the source must say the device set the pressure, not print a dial it missed.
TEST_F(PressureRun, ADiskSlowerThanItsStartRateIsSaidToSetThePressure) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a cgroup of its own)";
  auto dev = ResolveBlockDevice(*p_, dir_);
  if (!dev.ok()) GTEST_SKIP() << "no disk under " << dir_ << " to throttle: " << dev.status().ToString();
  auto cg = Cgroup::Create(*p_, DetectCgroups(*p_), "ream-pressure-it-" + std::to_string(p_->ProcessId()), nullptr);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  if (!(*cg)->Has("blkio") && (*cg)->version() == 1) GTEST_SKIP() << "no blkio controller mounted";
  SpawnOptions o;
  o.argv = {REAM_BINARY, "pressure", "disk", "--intensity", "100", "--seconds", "2", "--json", "--dir", dir_};
  o.join_files = (*cg)->ProcsFiles();
  o.capture_stdout = true;
  auto child = p_->Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  auto ready = (*child)->WaitForLine([](const std::string& l) { return l.find("pressure ready") != std::string::npos; },
                                     std::chrono::seconds(60));
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  constexpr int64_t kThrottle = 8 << 20;  // 8 MiB/s: far below any disk's direct-I/O peak
  ASSERT_TRUE(ApplyDiskLimits(**cg, *dev, {.write_bps = kThrottle}).ok());
  auto exit = (*child)->Wait(std::chrono::seconds(60));
  ASSERT_TRUE(exit.ok() && !exit->signaled && exit->exit_code == 0) << (exit.ok() ? exit->Describe() : exit.status().ToString());
  ASSERT_TRUE((*child)->WaitForOutputEnd(std::chrono::seconds(5)));
  const std::vector<std::string> lines = (*child)->Lines();
  ASSERT_FALSE(lines.empty());
  nlohmann::json j = nlohmann::json::parse(lines.back());
  const double peak = j["details"]["peak_bytes_per_s"];
  if (peak < 4.0 * kThrottle) GTEST_SKIP() << "this disk's own peak (" << peak << " B/s) is near the throttle";
  EXPECT_TRUE(j["details"]["device_bound"].get<bool>()) << j.dump();
  EXPECT_LT(j["achieved_percent"].get<double>(), 50.0) << j.dump();
  EXPECT_DOUBLE_EQ(j["details"]["asked_bytes_per_s"].get<double>(), peak) << j.dump();
  EXPECT_TRUE((*cg)->Destroy().ok());
}

TEST_F(PressureRun, BubbleWorkingSetFollowsTheDialAndSaysPressureIsUnmeasured) {
  for (const std::string source : {"l2", "llc"}) {
    nlohmann::json low = Run(source, 25), high = Run(source, 100);
    EXPECT_TRUE(low["achieved_percent"].is_null()) << low.dump();
    EXPECT_FALSE(low.value("unavailable", std::string()).empty()) << low.dump();
    const int64_t l = low["details"]["working_set_bytes"], h = high["details"]["working_set_bytes"];
    EXPECT_GT(l, 0) << source;
    EXPECT_EQ(h, high["details"]["cache_bytes"].get<int64_t>()) << source;
    EXPECT_GT(h, 3 * l) << source;
    EXPECT_GT(high["details"]["accesses_per_s"].get<double>(), 0) << source;
  }
}

TEST_F(PressureRun, BadInputIsRefusedWithAClearMessage) {
  CommandResult unknown = RunReam({"pressure", "l3", "--intensity", "50"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown source of interference 'l3'"), std::string::npos) << unknown.err;
  CommandResult range = RunReam({"pressure", "cpu", "--intensity", "150"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("0-100"), std::string::npos) << range.err;
  CommandResult nodir = RunReam({"pressure", "disk", "--intensity", "50", "--seconds", "1", "--dir", dir_ + "/absent"});
  EXPECT_EQ(nodir.exit_code, 2);
  EXPECT_NE(nodir.err.find(dir_ + "/absent"), std::string::npos) << nodir.err;
  EXPECT_NE(nodir.err.find("writable directory"), std::string::npos) << nodir.err;
}

TEST_F(PressureRun, SigtermStopsTheSourceCleanly) {
  // `timeout` sends SIGTERM after 4 s to a source told to run until stopped (and passes on its
  // exit status): it reports what it achieved, exits 0, and its scratch file is gone. The disk
  // source measures the device's rate first (over a second, longer on a busy host), so the 4 s
  // leave it more than the half second asserted below.
  auto r = p_->Run({"timeout", "--preserve-status", "-s", "TERM", "4", REAM_BINARY, "pressure", "disk",
                    "--intensity", "50", "--json", "--dir", dir_},
                   std::chrono::seconds(60));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->err;
  nlohmann::json j = LastJson(r->out);
  EXPECT_GT(j["seconds"].get<double>(), 0.5) << j.dump();
  auto left = p_->ListDir(dir_);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

}  // namespace
}  // namespace ream
