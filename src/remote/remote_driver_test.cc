// The remote load driver end to end on this machine with stand-ins for ssh and scp (a shell
// script that runs the remote command here, one that copies): real agents, a real workload,
// the copy done once, a dying agent making the point invalid with its name, and what the next
// level does by [nodes] on_agent_loss. No sshd needed (nodes_integration_test has the real one).
#include "remote/remote_driver.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "platform/platform.h"
#include "platform/ssh_stand_in.h"
#include "platform/test_directory.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

class RemoteDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::FreshTestDirectory("ream-remote-driver").string();
    fs::create_directories(dir_ + "/cache");
    // "ssh [options] HOST COMMAND": COMMAND runs here; host "dying" has its agent killed 1.05 s
    // after it starts: inside the first level's window (hello and clocks, the 600 ms lead and
    // the 100 ms warm-up put it at ~0.75-1.35 s); host "silent" has its agent stopped (SIGSTOP)
    // then, a host that stops answering with its session still up.
    testing_support::WriteSshStandIns(
        dir_, "  dying:exec*) exec timeout -s KILL 1.05 sh -c \"$cmd\";;\n"
              "  silent:exec*) exec 3<&0; sh -c \"$cmd\" <&3 3<&- & a=$!; sleep 1.05; kill -STOP $a; wait $a; exit;;\n");
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    SpawnOptions so;
    so.argv = {REAM_BINARY, "serve", "synthetic", "--port", "0", "--threads", "1", "--service", "exp:20us"};
    so.capture_stdout = true;
    auto child = p_->Spawn(so);
    ASSERT_TRUE(child.ok()) << child.status().message();
    server_ = std::move(child).value();
    auto ready = server_->WaitForLine([](const std::string& l) { return l.rfind("ready ", 0) == 0; },
                                      std::chrono::milliseconds(10000));
    ASSERT_TRUE(ready.ok()) << ready.status().message();
    // "ready 127.0.0.1:PORT ..."
    port_ = std::atoi(ready->substr(ready->find(':') + 1).c_str());
  }
  void TearDown() override {
    server_.reset();
    unsetenv("XDG_CACHE_HOME");
    fs::remove_all(dir_);
  }

  RemoteDriverOptions Options(std::vector<std::string> hosts, bool continue_without_lost) {
    RemoteDriverOptions o;
    o.hosts = std::move(hosts);
    o.workload_host = "127.0.0.1";
    o.ream_binary = REAM_BINARY;
    o.version_line = "a ream this host does not have";  // so the binary is copied
    o.ssh_program = dir_ + "/ssh";
    o.scp_program = dir_ + "/scp";
    o.continue_without_lost = continue_without_lost;
    o.scratch_dir = dir_;
    o.state_dir = dir_ + "/state";
    o.note = [this](const std::string& n) { notes_.push_back(n); };
    return o;
  }
  LoadOptions Level(double qps) {
    LoadOptions lo;
    lo.port = port_;
    lo.qps = qps;
    lo.duration_ns = 600'000'000;
    lo.warmup_ns = 100'000'000;
    lo.response_timeout_ns = 300'000'000;
    lo.timely_tolerance_ns = 2'000'000;
    lo.connections = 2;
    lo.kernel_rx_timestamps = false;
    return lo;
  }
  // `ream agent` processes run from the cache of this test.
  int AgentsRunning() {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::ifstream f(e.path() / "cmdline");
      std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (cmd.rfind(dir_ + "/ream/", 0) == 0 && cmd.find(std::string("\0agent", 6)) != std::string::npos) ++n;
    }
    return n;
  }

  std::unique_ptr<Platform> p_ = MakePosixPlatform();
  std::string dir_;
  std::unique_ptr<ChildProcess> server_;
  int port_ = 0;
  std::vector<std::string> notes_;
};

int Copies(const std::vector<std::string>& notes) {
  int n = 0;
  for (const auto& s : notes) n += s.find("copied this ream") != std::string::npos;
  return n;
}

TEST_F(RemoteDriverTest, TwoAgentsShareALevelAndTheBinaryIsCopiedOnce) {
  {
    auto d = MakeRemoteLoadDriver(*p_, Options({"one", "two"}, false));
    auto r = d->Measure(Level(600), {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(r->generator) << r->no_result.message();
    const nlohmann::json& g = *r->generator;
    ASSERT_EQ(g["agents"].size(), 2u) << g.dump();
    EXPECT_EQ(g["agents"][0]["name"], "ssh:one");
    EXPECT_NEAR(g["agents"][1]["target_qps"].get<double>(), 300, 1e-9);
    EXPECT_EQ(g["issued"].get<uint64_t>(),
              g["agents"][0]["issued"].get<uint64_t>() + g["agents"][1]["issued"].get<uint64_t>());
    EXPECT_NEAR(g["achieved_qps"].get<double>() / 600, 1.0, 3 / std::sqrt(600 * 0.6));
    // The same clock on both ends: the offset is within the round trip.
    EXPECT_LE(std::abs(g["agents"][0]["clock"]["offset_ns"].get<int64_t>()),
              g["agents"][0]["clock"]["rtt_ns"].get<int64_t>() + 50'000);
  }
  EXPECT_EQ(Copies(notes_), 2) << ::testing::PrintToString(notes_);  // one per host (one file system here)
  notes_.clear();
  auto again = MakeRemoteLoadDriver(*p_, Options({"one"}, false));
  auto r = again->Measure(Level(300), {});
  ASSERT_TRUE(r.ok() && r->generator);
  EXPECT_EQ(Copies(notes_), 0) << ::testing::PrintToString(notes_);
  // Its sessions' stderr directory is recorded for `ream cleanup` while it runs...
  auto records = p_->ListDir(dir_ + "/state");
  ASSERT_TRUE(records.ok() && records->size() == 1u);
  const std::string record = *p_->ReadFile(dir_ + "/state/" + records->front().name);
  auto at = record.find("\nscratchdir ");
  ASSERT_NE(at, std::string::npos) << record;
  const std::string scratch = record.substr(at + 12, record.find('\n', at + 1) - at - 12);
  EXPECT_TRUE(fs::is_directory(scratch)) << scratch;
  again.reset();
  EXPECT_EQ(AgentsRunning(), 0);
  // ...and gone with it, record and all.
  EXPECT_FALSE(fs::exists(scratch));
  EXPECT_TRUE(p_->ListDir(dir_ + "/state")->empty());
}

// A schedule or windows need the agents to share a rate over time and stream their windows:
// refused, saying so, before any agent starts.
TEST_F(RemoteDriverTest, AScheduleOrWindowsAreRefusedWithWhy) {
  auto d = MakeRemoteLoadDriver(*p_, Options({"one"}, false));
  LoadOptions scheduled = Level(400);
  scheduled.schedule = *ParseSchedule("400 for 1s", "[load] schedule", nullptr);
  ApplySchedule(&scheduled);
  auto r = d->Measure(scheduled, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("[load] schedule runs on this host's generator only"), std::string::npos)
      << r.status().message();
  LoadOptions windows = Level(400);
  windows.window_ns = 500'000'000;
  r = d->Measure(windows, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[load] window runs on this host's generator only"), std::string::npos)
      << r.status().message();
  d.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

TEST_F(RemoteDriverTest, ADyingAgentInvalidatesThePointAndFailsTheNextLevel) {
  auto d = MakeRemoteLoadDriver(*p_, Options({"good", "dying"}, false));
  auto first = d->Measure(Level(400), {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->generator);
  EXPECT_FALSE((*first->generator)["valid"].get<bool>());
  std::string reasons = (*first->generator)["invalid_reasons"].dump();
  EXPECT_NE(reasons.find("agent ssh:dying"), std::string::npos) << reasons;
  auto second = d->Measure(Level(500), {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("agent ssh:dying was lost"), std::string::npos)
      << second.status().message();
  d.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

TEST_F(RemoteDriverTest, ADyingAgentLeavesTheNextLevelToTheOthersWhenToldToContinue) {
  auto d = MakeRemoteLoadDriver(*p_, Options({"good", "dying"}, true));
  auto first = d->Measure(Level(400), {});
  ASSERT_TRUE(first.ok() && first->generator);
  EXPECT_FALSE((*first->generator)["valid"].get<bool>());
  auto second = d->Measure(Level(500), {});
  ASSERT_TRUE(second.ok()) << second.status().message();
  const nlohmann::json& g = *second->generator;
  ASSERT_EQ(g["agents"].size(), 1u);
  EXPECT_EQ(g["agents"][0]["name"], "ssh:good");
  EXPECT_NEAR(g["agents"][0]["target_qps"].get<double>(), 500, 1e-9);
  d.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

TEST_F(RemoteDriverTest, AHostThatStopsAnsweringIsGivenUpInBoundedTimeNamingIt) {
  RemoteDriverOptions o = Options({"good", "silent"}, false);
  o.result_grace = std::chrono::milliseconds(1000);
  auto d = MakeRemoteLoadDriver(*p_, o);
  auto t0 = std::chrono::steady_clock::now();
  auto first = d->Measure(Level(400), {});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->generator);
  EXPECT_FALSE((*first->generator)["valid"].get<bool>());
  std::string reasons = (*first->generator)["invalid_reasons"].dump();
  EXPECT_NE(reasons.find("agent ssh:silent: it returned no result within 1000 ms"), std::string::npos) << reasons;
  // The good agent's share is still in the point.
  EXPECT_GT((*first->generator)["issued"].get<uint64_t>(), 0u);
  // Window (~1.4 s with the lead), response timeout, grace: well under 10 s.
  EXPECT_LT(seconds, 10.0);
  d.reset();
  EXPECT_EQ(AgentsRunning(), 0);  // the stopped agent went with its session's process group
}

}  // namespace
}  // namespace ream
