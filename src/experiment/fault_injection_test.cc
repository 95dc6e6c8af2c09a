// Faults no user types, injected through the platform wrapper (FaultPlatform) into a real run
// on this machine (root, real cgroups, the built-in kv server, `ream load`): a cgroup write
// that fails, a full disk under the results database, a cgroup file that vanishes, an `ip`/`tc`
// that exits non-zero, a workload that ignores SIGTERM, a clock that jumps. Each test checks
// the finished points survive (integrity check, every point and histogram readable, the JSON
// export), the message names the fault, and nothing is left behind.
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "experiment/run_events.h"
#include "experiment/runner.h"
#include "spec/spec.h"
#include "platform/forwarding_platform.h"
#include "platform/integration_test_support.h"
#include "platform/test_directory.h"
#include "store/export.h"
#include "store/store.h"

namespace ream {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr int64_t kHourNs = 3600LL * 1'000'000'000;

std::unique_ptr<Platform> host = MakePosixPlatform();

using testing_support::ProcessesWith;

std::string Leftovers(int pid) { return testing_support::ReamObjectsOf(pid); }

// The ream binary under a path unique to this test process, so every process started from it
// (`ream serve`, `ream load`) is found by that path in /proc.
const std::string& MarkedReam() { return testing_support::WorldReachableReam(REAM_BINARY, "faults"); }

// Calls `on_level` after each level is measured and stored (the runner emits LevelMeasured
// after the point's transaction).
class LevelHook final : public RunObserver {
 public:
  std::function<void(const LevelMeasured&)> on_level;
  std::vector<std::string> warnings;
  void OnEvent(const RunEvent& e) override {
    if (const auto* l = std::get_if<LevelMeasured>(&e)) {
      if (on_level) on_level(*l);
    }
    if (const auto* w = std::get_if<RunWarning>(&e)) warnings.push_back(w->message);
  }
};

class FaultInjection : public testing_support::RootDatabaseTest {
 protected:
  FaultInjection() : RootDatabaseTest("ream-faults", "cgroups, namespaces") {}
  void SetUp() override {
    RootDatabaseTest::SetUp();
    t0_ = Clock::now();
  }
  void TearDown() override {
    if (!dir_.empty()) std::cerr << "[ fault test took " << Seconds() << " s ]\n";
    RootDatabaseTest::TearDown();
  }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  // A short kv experiment: 1-ST, warm-up 200 ms, 1 s per level, at `levels`.
  ExperimentSpec Spec(const std::string& name, const std::string& extra_top, const std::string& workload_extra,
                      const std::string& levels = "[500, 1000]") {
    std::string text = "name = \"" + name + "\"\nscenarios = [\"1-ST\"]\n" + extra_top +
                       "[workload]\nbuiltin = \"kv\"\n" + workload_extra +
                       "[load]\nwarmup = \"200ms\"\nduration = \"1s\"\nresponse_timeout = \"200ms\"\n"
                       // One measurement a level: the faults land on the level after the first.
                       "attempts = 1\n"
                       "[sweep]\nqps = " + levels + "\n[qos]\ntarget = \"5ms\"\n";
    return SpecText(text);
  }
  ExperimentSpec SpecText(const std::string& text) {
    auto spec = ParseSpec(text, (dir_ / "spec.toml").string());
    EXPECT_TRUE(spec.ok()) << spec.status().message();
    return spec.ok() ? *spec : ExperimentSpec{};
  }

  Result<std::vector<RunOutcome>> Run(Platform& p, const ExperimentSpec& spec) {
    RunnerOptions o;
    o.db_path = db_;
    o.out = &console_;
    o.observer = &hook_;
    o.ream_binary = MarkedReam();
    o.ream_version = "test";
    return RunExperiments(p, {spec}, o);
  }

  // The stored points of the only run of `experiment`, each checked readable (its histograms
  // and the JSON export), after an integrity check of the whole database.
  std::vector<PointRecord> StoredPoints(const std::string& experiment) {
    auto s = Store::Open(db_, false);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return {};
    Status integrity = s->IntegrityCheck();
    EXPECT_TRUE(integrity.ok()) << integrity.message();
    auto e = s->FindExperiment(experiment);
    EXPECT_TRUE(e.ok() && e->has_value());
    if (!e.ok() || !e->has_value()) return {};
    auto runs = s->ListRuns((*e)->id);
    EXPECT_TRUE(runs.ok() && runs->size() == 1u);
    if (!runs.ok() || runs->size() != 1u) return {};
    auto points = s->ListPoints((*runs)[0].id);
    EXPECT_TRUE(points.ok());
    if (!points.ok()) return {};
    for (const auto& p : *points) {
      auto h = s->GetHistograms(p.id);
      EXPECT_TRUE(h.ok()) << h.status().message();
      if (p.status == PointStatus::kOk) {
        EXPECT_TRUE(h.ok() && !h->empty()) << "point " << p.id << " has no histograms";
      }
    }
    auto exported = ExportStore(*s, ExportFormat::kJson, experiment);
    EXPECT_TRUE(exported.ok()) << exported.status().message();
    return *points;
  }

  void ExpectNothingLeft() {
    EXPECT_EQ(Leftovers(getpid()), "");
    EXPECT_TRUE(ProcessesWith(MarkedReam()).empty()) << "a ream serve/load process is left";
  }

  Clock::time_point t0_;
  std::ostringstream console_;
  LevelHook hook_;
};

// 1. A cgroup knob write that fails at the second level (the workload is restarted per point, so
// its cgroup and cpu.cfs_quota_us are written again): the first point is kept, the run fails
// naming the file and the errno text, and the second sandbox's objects are removed.
TEST_F(FaultInjection, CgroupWriteFailingAtTheSecondLevelKeepsTheFirstPointAndNamesTheFile) {
  FaultPlatform p(*host);
  std::atomic<int> quota_writes{0};
  std::string failed_path;
  p.on_write = [&](const std::string& path, const std::string&) -> std::optional<Status> {
    const bool knob = path.ends_with("/cpu.cfs_quota_us") || path.ends_with("/cpu.max");
    if (!knob || path.find("/ream-" + std::to_string(getpid()) + "-") == std::string::npos) return std::nullopt;
    if (++quota_writes < 2) return std::nullopt;
    failed_path = path;
    return ErrnoStatus(EIO, "write " + path);
  };
  auto r = Run(p, Spec("write", "[partitions]\ncpu_quota = \"80%\"\n", "restart = \"point\"\n"));
  ASSERT_FALSE(r.ok()) << console_.str();
  std::cerr << "[ ream said: " << r.status().message() << " ]\n";
  ASSERT_FALSE(failed_path.empty());
  EXPECT_NE(r.status().message().find(failed_path), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("Input/output error"), std::string::npos) << r.status().message();
  auto points = StoredPoints("write");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].target_load, 500);
  EXPECT_EQ(points[0].status, PointStatus::kOk);
  auto s = Store::OpenReadOnly(db_);
  ASSERT_TRUE(s.ok());
  auto e = s->FindExperiment("write");
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->status, ExperimentStatus::kFailed);
  EXPECT_NE((*e)->failure.find(failed_path), std::string::npos) << (*e)->failure;
  ExpectNothingLeft();
}

// 2. The file system under the results database fills after the first point (a 4 MiB tmpfs
// that the test fills up): the first point survives intact, the run fails saying the disk is
// full and naming the database, and no partial second point is stored.
TEST_F(FaultInjection, FullDiskUnderTheDatabaseKeepsStoredPointsAndSaysSo) {
  const fs::path mnt = dir_ / "small";
  fs::create_directories(mnt);
  ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=4m,mode=0755"), 0) << strerror(errno);
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt};
  db_ = (mnt / "r.db").string();
  const std::string filler = (mnt / "filler").string();
  hook_.on_level = [&](const LevelMeasured& l) {
    if (l.done_points != 1) return;
    // Fill what is left of the file system (the write stops at ENOSPC).
    int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::string block(64 * 1024, 'x');
    while (fd >= 0 && ::write(fd, block.data(), block.size()) > 0) {
    }
    for (size_t n = 4096; fd >= 0 && n > 0; n /= 2) {
      while (::write(fd, block.data(), n) > 0) {
      }
    }
    if (fd >= 0) ::close(fd);
  };
  auto r = Run(*host, Spec("full", "", "", "[500, 1000]"));
  ASSERT_FALSE(r.ok()) << console_.str();
  std::cerr << "[ ream said: " << r.status().message() << " ]\n";
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find(db_), std::string::npos) << msg;
  EXPECT_NE(msg.find("database or disk is full (no space left on the file system holding it"), std::string::npos)
      << msg;
  // The cause, not a later write that failed for the same reason: the point being stored.
  EXPECT_EQ(msg.rfind("storing the point at 1000 QPS: ", 0), 0u) << msg;
  fs::remove(filler);
  auto points = StoredPoints("full");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].target_load, 500);
  EXPECT_EQ(points[0].status, PointStatus::kOk);
  // No piece of the second point: every histogram and timeline row belongs to the first.
  auto s = Store::OpenReadOnly(db_);
  ASSERT_TRUE(s.ok());
  for (const char* table : {"histograms", "timelines"}) {
    auto q = s->db().Prepare(std::string("SELECT count(*) FROM ") + table + " WHERE point_id != ?");
    ASSERT_TRUE(q.ok());
    q->Bind(1, points[0].id);
    ASSERT_TRUE(q->Step().value_or(false));
    EXPECT_EQ(q->Int(0), 0) << table;
  }
  ExpectNothingLeft();
}

// 3. The cgroup's CPU account (cpuacct.usage; cpu.stat on v2) vanishes after the first level:
// the run goes on (the monitor's figures are not the measurement), and the second point is
// stored with its CPU figures unavailable, the reason naming the file — never a zero or a
// figure from part of the window.
TEST_F(FaultInjection, CgroupFileVanishingMidRunMakesItsFigureUnavailableWithTheReason) {
  FaultPlatform p(*host);
  std::atomic<bool> gone{false};
  p.on_read = [&](const std::string& path) -> std::optional<Result<std::string>> {
    if (!gone || path.find("/ream-" + std::to_string(getpid()) + "-") == std::string::npos) return std::nullopt;
    if (!path.ends_with("/cpuacct.usage") && !path.ends_with("/cpu.stat")) return std::nullopt;
    return ErrnoStatus(ENOENT, "open " + path);
  };
  hook_.on_level = [&](const LevelMeasured&) { gone = true; };
  auto r = Run(p, Spec("vanish", "", ""));
  ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << console_.str();
  auto points = StoredPoints("vanish");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_TRUE(points[0].cpu_util.has_value());
  const PointRecord& second = points[1];
  EXPECT_EQ(second.status, PointStatus::kOk);
  EXPECT_FALSE(second.cpu_util.has_value()) << *second.cpu_util;
  EXPECT_FALSE(second.server_cpu_s.has_value());
  ASSERT_TRUE(second.unavailable.count("cpu_util"));
  const std::string& why = second.unavailable.at("cpu_util");
  std::cerr << "[ stored as unavailable: " << why << " ]\n";
  EXPECT_TRUE(why.find("cpuacct.usage") != std::string::npos || why.find("cpu.stat") != std::string::npos) << why;
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
  ExpectNothingLeft();
}

// 4. A `tc` that exits non-zero while the node's bandwidth is shaped: the run fails before any
// load, naming the command and its stderr, and the namespace, veth and cgroup created before it
// are removed.
TEST_F(FaultInjection, TcFailingWhileShapingTheNodeFailsBeforeAnyLoadAndRemovesWhatItMade) {
  FaultPlatform p(*host);
  std::atomic<int> ip_commands{0};
  p.on_run = [&](const std::vector<std::string>& argv) -> std::optional<Result<CommandResult>> {
    if (!argv.empty() && argv[0] == "ip") ++ip_commands;
    if (argv.size() < 3 || argv[0] != "tc" || argv[1] != "qdisc" || argv[2] != "add") return std::nullopt;
    CommandResult c;
    c.exit_code = 2;
    c.err = "RTNETLINK answers: Operation not supported (injected)\n";
    return c;
  };
  auto r = Run(p, Spec("tc", "[partitions]\nnet_rate = \"100mbit\"\n", ""));
  ASSERT_FALSE(r.ok()) << console_.str();
  std::cerr << "[ ream said: " << r.status().message() << " ]\n";
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("'tc qdisc add dev ream"), std::string::npos) << msg;
  EXPECT_NE(msg.find("RTNETLINK answers: Operation not supported (injected)"), std::string::npos) << msg;
  EXPECT_GT(ip_commands.load(), 3) << "the namespace and veth were created before tc ran";
  EXPECT_TRUE(StoredPoints("tc").empty());
  ExpectNothingLeft();
}

// 5. A workload that ignores SIGTERM (a shell that traps it and keeps the server as its child):
// the stop escalates to SIGKILL after the 2 s grace, the points are stored, no process is left.
TEST_F(FaultInjection, WorkloadIgnoringSigtermIsKilledAfterTheGraceAndNothingIsLeft) {
  const std::string text = "name = \"term\"\nscenarios = [\"1-ST\"]\n[workload]\ncommand = [\"sh\", \"-c\", "
                           "\"trap '' TERM; " + MarkedReam() + " serve kv --port {port} & wait; wait\"]\n"
                           "ready = \"port\"\nready_timeout = \"10s\"\n"
                           "[load]\nwarmup = \"200ms\"\nduration = \"1s\"\nresponse_timeout = \"200ms\"\n"
                       // One measurement a level: the faults land on the level after the first.
                       "attempts = 1\n"
                           "[sweep]\nqps = [500]\n[qos]\ntarget = \"5ms\"\n";
  Clock::time_point stored_at;
  hook_.on_level = [&](const LevelMeasured&) { stored_at = Clock::now(); };
  auto r = Run(*host, SpecText(text));
  ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << console_.str();
  const double stop_s = std::chrono::duration<double>(Clock::now() - stored_at).count();
  // The grace (2 s) passed before the SIGKILL: the shell did not end at the SIGTERM.
  EXPECT_GE(stop_s, 1.9);
  EXPECT_LT(stop_s, 10);
  auto points = StoredPoints("term");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].status, PointStatus::kOk) << points[0].failure;
  EXPECT_TRUE(hook_.warnings.empty()) << hook_.warnings.front();
  ExpectNothingLeft();
}

// 6. ream's clocks jump during the second level: the wall clock back an hour, the monotonic
// clock forward an hour mid-window. Nothing hangs; no stored duration is negative or an hour
// long; the monitor's figures of the level the jump crossed are unavailable, saying the clock
// jumped, and the generator's measurement (its own clock, another process) is kept.
TEST_F(FaultInjection, ClockJumpsKeepDurationsSaneAndAreSaid) {
  FaultPlatform p(*host);
  std::atomic<bool> armed{false};
  std::atomic<int64_t> jump_at_ns{0};
  hook_.on_level = [&](const LevelMeasured& l) {
    if (l.done_points != 1) return;
    p.wall_offset_ns = -kHourNs;
    // Mid-window of the next level: after its start-up and 200 ms warm-up.
    jump_at_ns = host->MonotonicNanos() + 700'000'000;
    armed = true;
  };
  std::atomic<bool> stop{false};
  std::thread jumper([&] {
    while (!stop) {
      if (armed && host->MonotonicNanos() >= jump_at_ns) {
        p.monotonic_offset_ns = kHourNs;
        return;
      }
      host->SleepFor(std::chrono::milliseconds(5));
    }
  });
  auto r = Run(p, Spec("clock", "", "", "[500, 1000, 1500]"));
  stop = true;
  jumper.join();
  ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << console_.str();
  EXPECT_LT(Seconds(), 30) << "a jump made ream wait";
  auto points = StoredPoints("clock");
  ASSERT_EQ(points.size(), 3u) << console_.str();
  for (const auto& pt : points) {
    EXPECT_EQ(pt.status, PointStatus::kOk) << pt.target_load << ": " << pt.failure;
    ASSERT_TRUE(pt.duration_s.has_value());
    EXPECT_GT(*pt.duration_s, 0.5);
    EXPECT_LT(*pt.duration_s, 2.0);
    double monitor_s = pt.monitor.value("duration_s", -1.0);
    EXPECT_GE(monitor_s, 0) << pt.target_load;
    EXPECT_LT(monitor_s, 2.0) << pt.target_load;
  }
  // The level the monotonic jump crossed: its monitor figures are unavailable, said.
  ASSERT_TRUE(points[1].unavailable.count("cpu_util"));
  std::cerr << "[ stored as unavailable: " << points[1].unavailable.at("cpu_util") << " ]\n";
  EXPECT_NE(points[1].unavailable.at("cpu_util").find("clock jumped"), std::string::npos)
      << points[1].unavailable.at("cpu_util");
  EXPECT_TRUE(points[0].cpu_util.has_value());
  EXPECT_TRUE(points[2].cpu_util.has_value());
  // The wall clock's step back: the start times follow the clock, and that is said.
  EXPECT_LT(points[1].started_ns, points[0].started_ns);
  ASSERT_EQ(hook_.warnings.size(), 1u) << console_.str();
  EXPECT_NE(hook_.warnings[0].find("the wall clock went back 359"), std::string::npos) << hook_.warnings[0];
  ExpectNothingLeft();
}

}  // namespace
}  // namespace ream
