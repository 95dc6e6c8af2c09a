// libream-overhead.so on a stand-in workload (overhead_probe): socket messages cost o of the
// thread's CPU time, other descriptors nothing, and the statistics file says what was spent.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ream {
namespace {

constexpr int kMessages = 200;
constexpr int64_t kOverheadNs = 50'000;

// Runs the probe with `env` (NAME=value entries) and returns its figures.
std::map<std::string, int64_t> RunProbe(Platform& p, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {"env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(REAM_OVERHEAD_PROBE);
  argv.push_back(std::to_string(kMessages));
  auto r = p.Run(argv, std::chrono::seconds(20));
  std::map<std::string, int64_t> out;
  if (!r.ok() || r->exit_code != 0) {
    ADD_FAILURE() << "probe failed: " << (r.ok() ? r->Describe() + " " + r->err : r.status().message());
    return out;
  }
  for (const auto& field : Split(Trim(r->out), ' ')) {
    auto eq = field.find('=');
    if (eq != std::string::npos) out[field.substr(0, eq)] = std::stoll(field.substr(eq + 1));
  }
  return out;
}

// Keeps, for each figure of `run`, the least seen so far in `into`. A thread's CPU time is
// only ever inflated by the host (a vCPU preempted mid-spin is counted as running, and a spin
// that straddles a multi-millisecond stall overshoots by it), so the least of a few runs is
// the library's own cost.
void KeepLeast(std::map<std::string, int64_t>& into, const std::map<std::string, int64_t>& run) {
  for (const auto& [k, v] : run) {
    auto [it, fresh] = into.emplace(k, v);
    if (!fresh) it->second = std::min(it->second, v);
  }
}

class OverheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = MakePosixPlatform();
    dir_ = "/tmp/ream-overhead-test-" + std::to_string(p_->ProcessId());
    ASSERT_TRUE(p_->MakeDir(dir_).ok());
  }
  void TearDown() override {
    if (auto files = p_->ListDir(dir_); files.ok()) {
      for (const auto& f : *files) (void)p_->RemoveFile(dir_ + "/" + f.name);
    }
    (void)p_->RemoveDir(dir_);
  }
  std::unique_ptr<Platform> p_;
  std::string dir_;
};

TEST_F(OverheadTest, SocketMessagesCostOEachAndOtherDescriptorsNothing) {
  // Each figure is the least of three runs (KeepLeast): a clean clone in a noisy hour of 3 Dec
  // 2026 read 25.0 ms of spin for 400 messages at o = 50 µs in one run (the ceiling is 22).
  // The lower bounds hold in every run, so they are checked on the least too.
  constexpr int kRuns = 3;
  std::map<std::string, int64_t> base, with_o, stats;
  for (int i = 0; i < kRuns; ++i) {
    KeepLeast(base, RunProbe(*p_, {}));
    auto run = RunProbe(*p_, {std::string("LD_PRELOAD=") + REAM_OVERHEAD_LIB,
                              "REAM_NET_OVERHEAD_NS=" + std::to_string(kOverheadNs),
                              "REAM_NET_OVERHEAD_STATS=" + dir_});
    ASSERT_EQ(run["n"], kMessages);
    KeepLeast(with_o, run);
    // The statistics: one file per process, 2N socket messages, the CPU spent in the spins
    // and their wall time.
    auto files = p_->ListDir(dir_);
    ASSERT_TRUE(files.ok());
    int json_files = 0;
    for (const auto& f : *files) {
      const std::string path = dir_ + "/" + f.name;
      if (f.name.size() >= 5 && f.name.substr(f.name.size() - 5) == ".json") {
        ++json_files;
        auto text = p_->ReadFile(path);
        ASSERT_TRUE(text.ok());
        auto j = nlohmann::json::parse(*text);
        EXPECT_EQ(j["mode"], "calls");
        EXPECT_EQ(j["requested_ns"].get<int64_t>(), kOverheadNs);
        EXPECT_EQ(j["messages"].get<int64_t>(), 2 * kMessages);
        EXPECT_GE(j["wall_ns"].get<int64_t>(), j["cpu_ns"].get<int64_t>() * 9 / 10);
        KeepLeast(stats, {{"cpu_ns", j["cpu_ns"].get<int64_t>()}});
      }
      (void)p_->RemoveFile(path);
    }
    EXPECT_EQ(json_files, 1);
  }
  const int64_t floor = kMessages * kOverheadNs;
  // Slack for the calls themselves and for clock granularity at the end of each spin.
  const int64_t ceiling = floor * 3 / 2 + 2'000'000;
  EXPECT_GE(with_o["socket_send_cpu_ns"], floor);
  EXPECT_LE(with_o["socket_send_cpu_ns"], ceiling);
  EXPECT_GE(with_o["socket_recv_cpu_ns"], floor);
  EXPECT_LE(with_o["socket_recv_cpu_ns"], ceiling);
  // A pipe is not a socket: its 2N calls would cost 2N·o = 20 ms if they were charged; one
  // reading of 400 uncharged calls varies by a millisecond or more on a busy VM.
  EXPECT_LT(with_o["pipe_write_cpu_ns"], base["pipe_write_cpu_ns"] + floor / 2);
  // CPU spent at least o a message, and not much more.
  EXPECT_GE(stats["cpu_ns"], 2 * floor);
  EXPECT_LE(stats["cpu_ns"], 2 * floor * 11 / 10);
}

TEST_F(OverheadTest, UnsetOrZeroChangesNothing) {
  // One reading of a thread's CPU time over 200 sends varies several-fold on a busy virtual
  // machine (0.5 ms alone, 1.8 ms once under the parallel suite), so each side is the least of
  // interleaved runs, and the margin is a quarter of what o = 50 µs would add (N·o = 10 ms).
  constexpr int kRuns = 3;
  const int64_t margin = kMessages * kOverheadNs / 4;
  for (std::string o : {"", "0"}) {
    std::vector<std::string> env = {std::string("LD_PRELOAD=") + REAM_OVERHEAD_LIB,
                                    "REAM_NET_OVERHEAD_STATS=" + dir_};
    if (!o.empty()) env.push_back("REAM_NET_OVERHEAD_NS=" + o);
    std::map<std::string, int64_t> base, r;  // each figure's least over the runs
    for (int i = 0; i < kRuns; ++i) {
      auto without = RunProbe(*p_, {});
      auto with = RunProbe(*p_, env);
      ASSERT_EQ(without["n"], kMessages);
      ASSERT_EQ(with["n"], kMessages);
      KeepLeast(base, without);
      KeepLeast(r, with);
    }
    EXPECT_LT(r["socket_send_cpu_ns"], base["socket_send_cpu_ns"] + margin) << "o=" << o;
    EXPECT_LT(r["socket_recv_cpu_ns"], base["socket_recv_cpu_ns"] + margin) << "o=" << o;
  }
  // Inactive, the library writes no statistics.
  auto files = p_->ListDir(dir_);
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
}

}  // namespace
}  // namespace ream
