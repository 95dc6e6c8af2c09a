// A manager in a run on this machine (root, real cgroups): it writes the neighbour's quota to the
// neighbour's own cgroup before the load starts and stores its windows as they end; ream killed
// (SIGKILL) in the middle leaves the tenants' cgroups, which `ream cleanup` removes with
// everything else of the run — no partition outlives it. (What the policy decides window by
// window is manager_run_test.cc's, against a plant whose answers are known.)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "platform/integration_test_support.h"
#include "platform/test_directory.h"
#include "store/store.h"

namespace ream {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing_support::ProcessesWith;
using testing_support::ReamObjectsOf;

// The windows stored so far in `db` (0 while it cannot be read: the run is writing it).
int64_t StoredWindows(const std::string& db) {
  auto s = Store::Open(db, false);
  if (!s.ok()) return 0;
  auto st = s->db().Prepare("SELECT count(*) FROM manager_windows");
  if (!st.ok() || !st->Step().value_or(false)) return 0;
  return st->Int(0);
}

// The cpu cgroup directory process `pid` is in ("" if it cannot be read).
std::string CpuCgroupOf(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    // v1: "N:cpu,cpuacct:/ream-123-4"; v2: "0::/ream-123-4".
    auto colon = line.find(':');
    auto second = line.find(':', colon + 1);
    if (colon == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(colon + 1, second - colon - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) return "/sys/fs/cgroup" + path;
    if (("," + controllers + ",").find(",cpu,") != std::string::npos) return "/sys/fs/cgroup/" + controllers + path;
  }
  return "";
}

TEST(ManagerIntegration, TheNeighboursQuotaIsWrittenToItsCgroupAndKillNineLeavesWhatReamCleanupRemoves) {
  if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
  const fs::path dir = testing_support::FreshTestDirectory("ream-manager-integration");
  const std::string db = (dir / "m.db").string();
  const std::string marker = std::to_string(600000 + getpid() % 100000);
  const std::string spec = (dir / "managed.toml").string();
  std::ofstream(spec) << R"(name = "managed"
scenarios = ["1-ST"]
[workload]
builtin = "synthetic"
args = ["--service", "const:20us"]
[load]
warmup = "200ms"
response_timeout = "200ms"
attempts = 1
schedule = "1000 for 20s"
[qos]
target = "5ms"
[[corunner]]
name = "hog"
command = ["sleep", ")" + marker + R"("]
[colocation]
alone = false
[manager]
policy = "parties"
period = "250ms"
window = "250ms"
[[manager.resource]]
tenant = "hog"
knob = "cpu_quota"
unit = "10%"
min = "10%"
max = "70%"
)";
  const std::string log = (dir / "run.log").string();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    freopen(log.c_str(), "a", stdout);
    execl(REAM_BINARY, REAM_BINARY, "run", spec.c_str(), "--db", db.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto printed = [&] {
    std::stringstream s;
    s << std::ifstream(log).rdbuf();
    return s.str();
  };
  // The run is under way once windows are stored: the hog's cgroup then holds the manager's
  // starting allocation (its upper bound, 70 % of a CPU), which its partition did not ask for.
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (StoredWindows(db) < 2 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(StoredWindows(db), 2) << printed();
  std::vector<int> hogs;
  for (int p : ProcessesWith(marker)) {
    std::ifstream comm("/proc/" + std::to_string(p) + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == "sleep") hogs.push_back(p);
  }
  ASSERT_EQ(hogs.size(), 1u) << printed();
  const std::string cg = CpuCgroupOf(hogs[0]);
  ASSERT_NE(cg.find("/ream-" + std::to_string(pid) + "-"), std::string::npos) << cg;
  std::string quota;
  if (std::ifstream q(cg + "/cpu.cfs_quota_us"); q) {
    std::getline(q, quota);
  } else {
    std::ifstream max(cg + "/cpu.max");
    std::getline(max, quota);
  }
  EXPECT_EQ(quota.substr(0, 5), "70000") << cg;

  // SIGKILL: ream cannot clean up, so the tenants' cgroups and state records stay...
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_NE(ReamObjectsOf(pid), "");
  // ... until `ream cleanup` removes them, and every process of the run with them.
  testing_support::Exec cleanup = testing_support::Ream("cleanup");
  EXPECT_EQ(cleanup.code, 0) << cleanup.output;
  EXPECT_EQ(ReamObjectsOf(pid), "");
  deadline = Clock::now() + std::chrono::seconds(5);
  while (!ProcessesWith(marker).empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(ProcessesWith(marker).empty());
  // What was stored before the kill stays readable.
  auto s = Store::Open(db, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->IntegrityCheck().ok());
  fs::remove_all(dir);
}

// --profile: the subject's resources start where its own sweep (same database) says the cheapest
// allocation meets QoS at the schedule's first rate. The synthetic server at 200 us a request
// meets a 5 ms p95 at 1 000 QPS with 30 % of a CPU (20 % of a CPU busy), so the cheapest of 30 %
// and 100 % is 30 %; at 1 500 QPS it needs all of the 30 % and more: only 100 % meets it.
TEST(ManagerIntegration, ProfileStartsTheSubjectAtTheCheapestAllocationItsSweepFound) {
  if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
  const fs::path dir = testing_support::FreshTestDirectory("ream-manager-profile");
  const std::string db = (dir / "p.db").string();
  const std::string sweep = (dir / "sweep.toml").string();
  std::ofstream(sweep) << R"(name = "sweep"
scenarios = ["1-ST"]
[workload]
builtin = "synthetic"
args = ["--service", "const:200us"]
[partitions]
cpu_quota = ["30%", "100%"]
[load]
warmup = "200ms"
duration = "600ms"
response_timeout = "200ms"
[sweep]
qps = [500, 1000, 1500, 3000]
[qos]
target = "5ms"
)";
  testing_support::Exec swept = testing_support::Ream("run " + sweep + " --db " + db);
  ASSERT_EQ(swept.code, 0) << swept.output;
  auto managed = [&](const std::string& first) {
    const std::string spec = (dir / ("managed-" + first + ".toml")).string();
    std::ofstream(spec) << "name = \"managed\"\nscenarios = [\"1-ST\"]\n[workload]\nbuiltin = \"synthetic\"\n"
                           "args = [\"--service\", \"const:200us\"]\n[load]\nschedule = \"" +
                               first +
                               " for 2s, 300 for 2s\"\n[qos]\ntarget = \"5ms\"\n[manager]\npolicy = \"parties\"\n"
                               "[[manager.resource]]\ntenant = \"subject\"\nknob = \"cpu_quota\"\nunit = \"10%\"\n"
                               "min = \"20%\"\nmax = \"100%\"\n";
    return testing_support::Ream("run " + spec + " --db " + db + " --profile sweep --dry-run");
  };
  testing_support::Exec low = managed("1000");
  EXPECT_EQ(low.code, 0) << low.output;
  EXPECT_NE(low.output.find("--profile sweep: the subject starts at cpu_quota 30%"), std::string::npos) << low.output;
  testing_support::Exec high = managed("1500");
  EXPECT_EQ(high.code, 0) << high.output;
  EXPECT_NE(high.output.find("--profile sweep: the subject starts at cpu_quota 100%"), std::string::npos)
      << high.output;
  // No allocation of the sweep meets QoS at 50 000 QPS: refused, saying so.
  testing_support::Exec none = managed("50000");
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.output.find("no measured allocation meets QoS at 50000 QPS"), std::string::npos) << none.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ream
