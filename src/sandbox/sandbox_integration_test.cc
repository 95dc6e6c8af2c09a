// `ream exec` on the real kernel (root, cgroup v1 here): each partition is enforced, the
// monitor reports what an independent measurement sees, and nothing ream created is left
// behind — after normal runs, failures, and a SIGKILL of ream followed by `ream cleanup`.
// The workloads are ream_test_workload (workload_helper.cc), which measure themselves.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "partition/knobs.h"
#include "partition/placement.h"
#include "platform/text.h"
#include "sandbox/sandbox.h"
#include "platform/platform.h"
#include "platform/integration_test_support.h"
#include "topology/topology.h"

namespace ream {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::unique_ptr<Platform> host = MakePosixPlatform();

std::string Sh(const std::string& script) {
  auto r = host->Run({"sh", "-c", script}, seconds(30));
  return r.ok() ? r->out : "<sh failed: " + r.status().message() + ">";
}

std::string Leftovers(int pid) { return testing_support::ReamObjectsOf(pid); }

struct ReamRun {
  int pid = 0;
  std::unique_ptr<ChildProcess> child;
  std::string Output() const {
    std::string out;
    for (const auto& l : child->Lines()) out += l + "\n";
    return out;
  }
};

// Starts `ream <args>` with stdout and stderr captured together (line by line), with `env` on
// top of this test's environment.
ReamRun StartReam(const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& env = {}) {
  SpawnOptions o;
  o.argv = {"sh", "-c", "exec \"$0\" \"$@\" 2>&1", REAM_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.capture_stdout = true;
  o.env = env;
  auto c = host->Spawn(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  ReamRun r;
  if (c.ok()) {
    r.pid = (*c)->pid();
    r.child = std::move(c).value();
  }
  return r;
}

std::string Workload() { return REAM_TEST_WORKLOAD; }

class ReamExec : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups and namespaces";
    samples_ = "/tmp/ream-exec-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json";
  }
  void TearDown() override {
    // Whatever happened, no ream we started may leave anything: kill stragglers, let
    // `ream cleanup` remove dead runs' objects, then list what is left.
    for (auto& r : runs_) r.child.reset();
    if (!runs_.empty()) (void)host->Run({REAM_BINARY, "cleanup"}, seconds(60));
    for (auto& r : runs_) EXPECT_EQ(Leftovers(r.pid), "") << "ream pid " << r.pid;
    std::filesystem::remove(samples_);
    for (const auto& f : files_) std::filesystem::remove(f);
  }
  // Runs ream to completion (timeout `limit`), keeping it for the leftover check.
  ReamRun& Run(const std::vector<std::string>& args, milliseconds limit, ProcessExit* exit,
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
    runs_.push_back(StartReam(args, env));
    ReamRun& r = runs_.back();
    if (!r.child) return r;
    auto e = r.child->Wait(limit);
    EXPECT_TRUE(e.ok()) << "ream did not finish: " << r.Output();
    if (e.ok() && exit) *exit = *e;
    // Let the stdout reader drain the last lines.
    (void)r.child->WaitForLine([](const std::string&) { return false; }, milliseconds(2000));
    return r;
  }
  nlohmann::json Samples() {
    std::ifstream f(samples_);
    if (!f) return nullptr;
    return nlohmann::json::parse(f, nullptr, false);
  }
  std::string samples_;
  std::deque<ReamRun> runs_;  // a deque: references stay valid as runs are added
  std::vector<std::string> files_;
};

// What /proc says of the process a shell line runs in: its uid, capability sets, no_new_privs.
const char kWhoAmI[] =
    "echo uid=$(id -u); grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status";

std::string Field(const std::string& out, const std::string& key) {
  std::smatch m;
  std::regex re("(^|\n)" + key + "[=:]\\s*([^\\n]*)");
  return std::regex_search(out, m, re) ? m[2].str() : "<no " + key + ">";
}

// With L, ream exec measures what the relay adds for a client that is not ream's
// generator (a pinger on twins of its relay, in front of ream's echo), says it, and stores it.
TEST_F(ReamExec, ARelayKnobIsCalibratedAtStartByAPingerAndStoredWithTheSamples) {
  ProcessExit e;
  ReamRun& r = Run({"exec", "--net-latency", "2ms", "--relay-port", "9", "--samples", samples_, "--", "sleep", "1"},
                   milliseconds(60000), &e);
  const std::string out = r.Output();
  EXPECT_EQ(e.exit_code, 0) << out;
  EXPECT_NE(out.find("relay calibration (a pinger, every 2 ms): L "), std::string::npos) << out;
  EXPECT_NE(out.find("relay 127.0.0.1:"), std::string::npos) << out;
  nlohmann::json j = Samples();
  ASSERT_TRUE(j.is_object()) << out;
  const nlohmann::json& c = j["sandbox"]["relay_calibration"]["net_latency"];
  ASSERT_TRUE(c.is_object()) << j["sandbox"].dump();
  EXPECT_EQ(c["requested_us"], 2000.0);
  ASSERT_TRUE(c["measured_us"].is_number()) << c.dump();
  // 2 ms is ten times this machine's worst wake-ups: the median one way lands near it.
  EXPECT_GT(c["measured_us"].get<double>(), 1700) << c.dump();
  EXPECT_LT(c["measured_us"].get<double>(), 2400) << c.dump();
  EXPECT_EQ(c["warning"].get<bool>(), std::abs(c["measured_us"].get<double>() - 2000) > 200) << c.dump();
}

TEST_F(ReamExec, CommandRunsAsTheWorkloadUserWithNoPrivilegeByDefault) {
  struct passwd* pw = ::getpwnam("ream");
  ASSERT_NE(pw, nullptr) << "no user 'ream': run scripts/install-deps (or scripts/ream-user)";
  ProcessExit e;
  ReamRun& r = Run({"exec", "--", "sh", "-c", kWhoAmI}, milliseconds(30000), &e);
  const std::string out = r.Output();
  EXPECT_EQ(e.exit_code, 0) << out;
  EXPECT_EQ(Field(out, "uid"), std::to_string(pw->pw_uid)) << out;
  EXPECT_NE(Field(out, "uid"), "0") << out;
  for (const char* set : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
    EXPECT_EQ(Field(out, set), "0000000000000000") << set << "\n" << out;
  }
  EXPECT_EQ(Field(out, "NoNewPrivs"), "1") << out;
  EXPECT_NE(out.find("user ream"), std::string::npos) << out;
}

TEST_F(ReamExec, RootOnlyWhenAskedFor) {
  ProcessExit e;
  ReamRun& r = Run({"exec", "--user", "root", "--", "sh", "-c", kWhoAmI}, milliseconds(30000), &e);
  const std::string out = r.Output();
  EXPECT_EQ(e.exit_code, 0) << out;
  EXPECT_EQ(Field(out, "uid"), "0") << out;
  EXPECT_NE(Field(out, "CapEff"), "0000000000000000") << out;  // ream's own privileges
  // --user nobody: another account, dropped the same way.
  ReamRun& n = Run({"exec", "--user", "nobody", "--", "sh", "-c", kWhoAmI}, milliseconds(30000), &e);
  EXPECT_EQ(Field(n.Output(), "uid"), std::to_string(::getpwnam("nobody")->pw_uid)) << n.Output();
  EXPECT_EQ(Field(n.Output(), "CapEff"), "0000000000000000") << n.Output();
}

TEST_F(ReamExec, UnknownUserIsRefusedBeforeAnythingRuns) {
  ProcessExit e;
  ReamRun& r = Run({"exec", "--user", "no-such-ream-user", "--", "sh", "-c", "echo ran"}, milliseconds(30000), &e);
  const std::string out = r.Output();
  EXPECT_NE(e.exit_code, 0) << out;
  EXPECT_NE(out.find("the workload's user 'no-such-ream-user' does not exist"), std::string::npos) << out;
  EXPECT_EQ(out.find("\nran\n"), std::string::npos) << out;
  // TearDown checks that no cgroup, state file or namespace was left.
}

TEST_F(ReamExec, AllowedCpusEqualTheResolvedScenario) {
  auto topo = ReadTopology(*host);
  ASSERT_TRUE(topo.ok());
  auto want = ResolvePlacement(*topo, "1-ST", DefaultGeneratorCpus(*topo));
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ProcessExit e;
  ReamRun& r = Run({"exec", "--cpus", "1-ST", "--", "grep", "Cpus_allowed_list", "/proc/self/status"},
                   milliseconds(30000), &e);
  EXPECT_EQ(e.exit_code, 0) << r.Output();
  std::smatch m;
  std::string out = r.Output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("Cpus_allowed_list:\\s*(\\S+)"))) << out;
  EXPECT_EQ(m[1].str(), FormatCpuList(*want));
}

TEST_F(ReamExec, SmtScenarioWithoutSiblingsFailsWithTheReason) {
  auto topo = ReadTopology(*host);
  ASSERT_TRUE(topo.ok());
  if (topo->has_smt()) GTEST_SKIP() << "this machine has SMT siblings";
  ProcessExit e;
  ReamRun& r = Run({"exec", "--cpus", "2-SMT", "--", "true"}, milliseconds(30000), &e);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(r.Output().find("needs SMT siblings"), std::string::npos) << r.Output();
  if (topo->cores.size() == 2) {
    // Two cores, one kept for the generator: 2-ST cannot be honoured unless lifted.
    ReamRun& st = Run({"exec", "--cpus", "2-ST", "--", "true"}, milliseconds(30000), &e);
    EXPECT_EQ(e.exit_code, 2);
    EXPECT_NE(st.Output().find("--reserve-cpus none"), std::string::npos) << st.Output();
    Run({"exec", "--cpus", "2-ST", "--reserve-cpus", "none", "--", "true"}, milliseconds(30000), &e);
    EXPECT_EQ(e.exit_code, 0);
  }
}

// The quota caps a busy loop at half a CPU. The loop runs alone on the 1-ST CPU with a high
// CPU weight so that other processes on that CPU (compilers, other tests) cannot push it
// *below* its allotment; the weight never lets it above the quota.
TEST_F(ReamExec, CpuQuotaCapsABusyLoopAtHalfACpu) {
  ProcessExit e;
  ReamRun& r = Run({"exec", "--cpus", "1-ST", "--cpu-quota", "50%", "--cpu-weight", "10000",
                    "--sample-interval", "250ms", "--samples", samples_, "--", Workload(), "spin",
                    "4"},
                   milliseconds(60000), &e);
  ASSERT_EQ(e.exit_code, 0) << r.Output();
  std::smatch m;
  std::string out = r.Output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("cpu_s=([0-9.]+) wall_s=([0-9.]+)"))) << out;
  double proc_share = std::stod(m[1]) / std::stod(m[2]);
  EXPECT_NEAR(proc_share, 0.5, 0.05) << "from /proc/self/stat: " << out;
  auto j = Samples();
  ASSERT_TRUE(j.is_object());
  double monitor_share = j["summary"]["cpu_used"]["mean"].get<double>();
  // The monitor's window includes ream's start-up and the exit, a few ms of idle.
  EXPECT_NEAR(monitor_share, 0.5, 0.05) << j["summary"].dump();
  EXPECT_NEAR(j["summary"]["cpu_utilization"]["mean"].get<double>(), 1.0, 0.1);
  EXPECT_GE(j["timeline"].size(), 12u);
  std::cout << "[measured] cpu share: /proc " << proc_share << ", monitor " << monitor_share << "\n";
}

TEST_F(ReamExec, ProcessPastTheMemoryLimitIsKilledAndReamSaysSo) {
  ProcessExit e;
  ReamRun& r = Run({"exec", "--memory", "128M", "--samples", samples_, "--", Workload(), "alloc", "512"},
                   milliseconds(60000), &e);
  EXPECT_EQ(e.exit_code, 128 + SIGKILL) << r.Output();
  EXPECT_NE(r.Output().find("killed by the memory limit (OOM) of 128.0 MiB"), std::string::npos)
      << r.Output();
  EXPECT_EQ(r.Output().find("allocated"), std::string::npos);
  auto j = Samples();
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["exit"]["oom_killed"].get<bool>());
  // The kernel's high-water mark saw the allocation reach the limit, which the samples may
  // miss: the allocation runs past 128 MiB in a few ms, between two samples.
  ASSERT_TRUE(j["memory_peak"]["bytes"].is_number()) << j["unavailable"].dump();
  double peak = j["memory_peak"]["bytes"].get<double>();
  EXPECT_GT(peak, 64.0 * (1 << 20)) << j["memory_peak"].dump();
  EXPECT_GT(peak, 1 << 20);
  EXPECT_LE(peak, 128.0 * (1 << 20) + 1);
  EXPECT_FALSE(j["memory_peak"]["scope"].get<std::string>().empty());
  EXPECT_NE(r.Output().find("memory peak "), std::string::npos) << r.Output();
  // The sampled timeline is beside it, and never exceeded the limit either.
  ASSERT_TRUE(j["summary"]["memory_bytes"]["max"].is_number());
  EXPECT_LE(j["summary"]["memory_bytes"]["max"].get<double>(), 128.0 * (1 << 20) + 1);
  EXPECT_LE(j["summary"]["memory_bytes"]["max"].get<double>(), peak);
  std::cout << "[measured] memory peak (kernel, " << j["memory_peak"]["scope"].get<std::string>()
            << ") " << peak / (1 << 20) << " MiB; sampled max "
            << j["summary"]["memory_bytes"]["max"].get<double>() / (1 << 20) << " MiB\n";
}

TEST_F(ReamExec, DirectReadsRunAtTheDiskLimitAndTheMonitorSeesIt) {
  // A file on a real disk (not tmpfs), written outside the sandbox.
  std::string dir = "/var/tmp";
  std::string file = dir + "/ream-disk-test-" + std::to_string(::getpid());
  files_.push_back(file);
  std::string made = Sh("dd if=/dev/zero of=" + file +
                        " bs=1M count=40 oflag=direct 2>&1 >/dev/null && sync && echo made");
  ASSERT_NE(made.find("made"), std::string::npos) << made;
  ProcessExit e;
  ReamRun& r = Run({"exec", "--disk-read-bps", "10M", "--disk-device", file, "--samples", samples_,
                    "--", "dd", "if=" + file, "of=/dev/null", "bs=1M", "iflag=direct"},
                   milliseconds(60000), &e);
  ASSERT_EQ(e.exit_code, 0) << r.Output();
  std::smatch m;
  std::string out = r.Output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("(\\d+) bytes .* copied, ([0-9.]+) s"))) << out;
  double bytes = std::stod(m[1]), secs = std::stod(m[2]);
  double rate = bytes / secs;
  const double kLimit = 10.0 * 1024 * 1024;
  EXPECT_NEAR(rate / kLimit, 1.0, 0.15) << "dd: " << out;
  auto j = Samples();
  ASSERT_TRUE(j.is_object());
  double mon_bytes = j["summary"]["disk_read_bytes_per_s"]["mean"].get<double>() * j["duration_s"].get<double>();
  // The cgroup accounted every byte dd read, and its rate over dd's own duration matches.
  EXPECT_NEAR(mon_bytes / bytes, 1.0, 0.02) << j["summary"].dump();
  double mon_rate_during = mon_bytes / secs;
  EXPECT_NEAR(mon_rate_during / kLimit, 1.0, 0.15);
  // Samples taken while dd ran show the limit too.
  std::vector<double> busy;
  for (const auto& s : j["timeline"])
    if (!s["disk_read_bytes_per_s"].is_null() && s["disk_read_bytes_per_s"].get<double>() > 0)
      busy.push_back(s["disk_read_bytes_per_s"].get<double>());
  ASSERT_GE(busy.size(), 8u);
  double sum = 0;
  for (double b : busy) sum += b;
  EXPECT_NEAR(sum / busy.size() / kLimit, 1.0, 0.15);
  std::cout << "[measured] direct read: dd " << rate / (1 << 20) << " MiB/s, monitor "
            << mon_rate_during / (1 << 20) << " MiB/s\n";
}

TEST_F(ReamExec, TrafficIntoANodeRunsAtTheShapedRate) {
  const int kPort = 5701;
  runs_.push_back(StartReam({"exec", "--node", "--net-rate", "100mbit", "--samples", samples_,
                             "--sample-interval", "250ms", "--", Workload(), "sink",
                             std::to_string(kPort)}));
  ReamRun& r = runs_.back();
  ASSERT_TRUE(r.child);
  auto ready = r.child->WaitForLine(
      [](const std::string& l) { return l.rfind("ready addr=", 0) == 0; }, milliseconds(30000));
  ASSERT_TRUE(ready.ok()) << ready.status().ToString() << "\n" << r.Output();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*ready, m, std::regex("addr=(10\\.213\\.[0-9.]+) port=")));
  std::string addr = m[1];
  // Send as fast as TCP allows for 3 s from the host to the node.
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(kPort);
  ::inet_pton(AF_INET, addr.c_str(), &a.sin_addr);
  ASSERT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
  std::vector<char> buf(64 * 1024, 'x');
  auto end = std::chrono::steady_clock::now() + seconds(3);
  long long sent = 0;
  while (std::chrono::steady_clock::now() < end) {
    ssize_t n = ::send(s, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += n;
  }
  ::close(s);
  auto got = r.child->WaitForLine(
      [](const std::string& l) { return l.rfind("received=", 0) == 0; }, milliseconds(30000));
  ASSERT_TRUE(got.ok()) << r.Output();
  auto e = r.child->Wait(milliseconds(30000));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->exit_code, 0) << r.Output();
  ASSERT_TRUE(std::regex_search(*got, m, std::regex("received=(\\d+) seconds=([0-9.]+)")));
  double goodput_bps = std::stod(m[1]) * 8 / std::stod(m[2]);
  EXPECT_NEAR(goodput_bps / 100e6, 1.0, 0.10) << *got;
  auto j = Samples();
  ASSERT_TRUE(j.is_object());
  EXPECT_NE(j["sources"]["net"].get<std::string>().find("node veth"), std::string::npos);
  // The monitor's busy samples (link bytes, headers included) show the shaped rate.
  std::vector<double> busy;
  for (const auto& smp : j["timeline"])
    if (!smp["net_rx_bytes_per_s"].is_null() && smp["net_rx_bytes_per_s"].get<double>() * 8 > 50e6)
      busy.push_back(smp["net_rx_bytes_per_s"].get<double>() * 8);
  ASSERT_GE(busy.size(), 8u) << j["timeline"].dump();
  double sum = 0;
  for (double b : busy) sum += b;
  double monitor_bps = sum / busy.size();
  EXPECT_NEAR(monitor_bps / 100e6, 1.0, 0.10);
  std::cout << "[measured] into the node: goodput " << goodput_bps / 1e6 << " Mbit/s, monitor "
            << monitor_bps / 1e6 << " Mbit/s (link bytes)\n";
}

// The workload's TMPDIR is a directory of its own, owned by its user, that goes with the
// sandbox whatever the workload left in it — without following the links it planted there.
TEST_F(ReamExec, TheWorkloadsTmpdirIsItsOwnAndGoesWithTheSandboxLinksNotFollowed) {
  namespace fs = std::filesystem;
  const fs::path canary = fs::temp_directory_path() / ("ream-tmpdir-canary-" + std::to_string(::getpid()));
  fs::create_directories(canary / "inside");
  std::ofstream(canary / "keep") << "keep";
  std::ofstream(canary / "inside" / "keep") << "keep";
  const std::string c = canary.string();
  ProcessExit e;
  ReamRun& r = Run({"exec", "--", "sh", "-c",
                    "echo tmpdir=$TMPDIR; echo owner=$(stat -c %U \"$TMPDIR\"); mkdir \"$TMPDIR/d\" && "
                    "echo x > \"$TMPDIR/d/f\" && ln -s " + c + " \"$TMPDIR/dir-link\" && ln -s " + c +
                    "/keep \"$TMPDIR/d/file-link\" && ls \"$TMPDIR/dir-link/inside\" && echo planted"},
                   milliseconds(30000), &e);
  const std::string out = r.Output();
  EXPECT_EQ(e.exit_code, 0) << out;
  const std::string tmpdir = Field(out, "tmpdir");
  EXPECT_EQ(tmpdir, "/tmp/ream-" + std::to_string(r.pid) + "-1.tmp") << out;
  EXPECT_EQ(Field(out, "owner"), "ream") << out;
  EXPECT_NE(out.find("planted"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmpdir))) << "left: " << tmpdir;
  EXPECT_TRUE(fs::exists(canary / "keep")) << "a link in the TMPDIR was followed";
  EXPECT_TRUE(fs::exists(canary / "inside" / "keep")) << "a link in the TMPDIR was followed";
  fs::remove_all(canary);
}

TEST_F(ReamExec, KilledReamLeavesObjectsThatCleanupRemoves) {
  runs_.push_back(StartReam({"exec", "--node", "--net-rate", "10mbit", "--memory", "64M",
                             "--cpus", "1-ST", "--", "sleep", "60"}));
  ReamRun& r = runs_.back();
  ASSERT_TRUE(r.child);
  auto line = r.child->WaitForLine(
      [](const std::string& l) { return l.find("node address") != std::string::npos; },
      milliseconds(30000));
  ASSERT_TRUE(line.ok()) << r.Output();
  std::string before = Leftovers(r.pid);
  // The run's cgroups, namespace, veth, qdisc and state file all exist now.
  EXPECT_NE(before.find("/sys/fs/cgroup/memory/ream-"), std::string::npos) << before;
  EXPECT_NE(Sh("ip netns list | grep -c 'ream-" + std::to_string(r.pid) + "-1'"), "0\n") << before;
  EXPECT_NE(before.find("ream" + std::to_string(r.pid) + "h1"), std::string::npos) << before;
  EXPECT_NE(before.find("qdisc htb"), std::string::npos) << before;
  EXPECT_NE(before.find(".state"), std::string::npos) << before;
  EXPECT_NE(before.find("/tmp/ream-" + std::to_string(r.pid) + "-1.tmp"), std::string::npos) << before;
  ASSERT_EQ(::kill(r.pid, SIGKILL), 0);
  ASSERT_TRUE(r.child->Wait(milliseconds(10000)).ok());
  EXPECT_EQ(Leftovers(r.pid), before) << "SIGKILL cannot clean up; cleanup must";
  auto c = host->Run({REAM_BINARY, "cleanup"}, seconds(60));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->exit_code, 0) << c->out << c->err;
  EXPECT_NE(c->out.find("netns ream-" + std::to_string(r.pid) + "-1"), std::string::npos) << c->out;
  EXPECT_EQ(Leftovers(r.pid), "");
}

TEST_F(ReamExec, InterruptedReamRemovesEverything) {
  for (int sig : {SIGINT, SIGTERM}) {
    runs_.push_back(StartReam({"exec", "--node", "--net-rate", "50mbit", "--memory", "64M", "--",
                               "sleep", "60"}));
    ReamRun& r = runs_.back();
    ASSERT_TRUE(r.child);
    ASSERT_TRUE(r.child
                    ->WaitForLine(
                        [](const std::string& l) { return l.find("node address") != std::string::npos; },
                        milliseconds(30000))
                    .ok())
        << r.Output();
    EXPECT_NE(Leftovers(r.pid), "");
    ASSERT_EQ(::kill(r.pid, sig), 0);
    auto e = r.child->Wait(milliseconds(15000));
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->exit_code, 128 + sig) << r.Output();
    EXPECT_EQ(Leftovers(r.pid), "") << "after signal " << sig << ", without ream cleanup";
  }
}

TEST_F(ReamExec, BadInputIsRefusedWithTheCauseAndLeavesNothing) {
  ProcessExit e;
  ReamRun& a = Run({"exec", "--memory", "lots", "--", "true"}, milliseconds(30000), &e);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(a.Output().find("--memory"), std::string::npos) << a.Output();
  ReamRun& b = Run({"exec", "--net-rate", "100mbit", "--", "true"}, milliseconds(30000), &e);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(b.Output().find("needs --node"), std::string::npos) << b.Output();
  ReamRun& c = Run({"exec", "--llc-ways", "2", "--", "true"}, milliseconds(30000), &e);
  if (!std::filesystem::exists("/sys/fs/resctrl/info")) {
    EXPECT_EQ(e.exit_code, 2);
    EXPECT_NE(c.Output().find("--llc-ways: resctrl"), std::string::npos) << c.Output();
  }
  ReamRun& d = Run({"exec", "--", "/nonexistent/program"}, milliseconds(30000), &e);
  EXPECT_NE(e.exit_code, 0);
  EXPECT_NE(d.Output().find("/nonexistent/program"), std::string::npos) << d.Output();
}


// Root's PATH may list first a directory only root can enter (a per-user shim): the workload's
// user must get the program of that name it can run, from a later PATH entry, and when there is
// none, a message that names the program, the user, the PATH and the fix.
TEST_F(ReamExec, TheProgramIsFoundInPathAsTheWorkloadUserWouldFindIt) {
  ASSERT_NE(::getpwnam("ream"), nullptr) << "no user 'ream': run scripts/install-deps (or scripts/ream-user)";
  const std::string base = "/tmp/ream-exec-path-" + std::to_string(::getpid());
  const std::string priv = base + "/root-only", pub = base + "/public";
  const std::string program = "ream-exec-path-probe";
  namespace fs = std::filesystem;
  fs::create_directories(priv);
  fs::create_directories(pub);
  fs::permissions(base, fs::perms(0755));
  fs::permissions(priv, fs::perms(0700));
  fs::permissions(pub, fs::perms(0755));
  for (const auto& dir : {priv, pub}) {
    std::ofstream(dir + "/" + program) << "#!/bin/sh\necho ran from " << dir << " as $(id -un)\n";
    fs::permissions(dir + "/" + program, fs::perms(0755));
  }
  const std::string rest = ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  ProcessExit e;
  ReamRun& r = Run({"exec", "--", program}, milliseconds(30000), &e, {{"PATH", priv + ":" + pub + rest}});
  EXPECT_EQ(e.exit_code, 0) << r.Output();
  EXPECT_NE(r.Output().find("ran from " + pub + " as ream"), std::string::npos) << r.Output();
  // Root, asked for, gets the first one.
  ReamRun& root =
      Run({"exec", "--user", "root", "--", program}, milliseconds(30000), &e, {{"PATH", priv + ":" + pub + rest}});
  EXPECT_EQ(e.exit_code, 0) << root.Output();
  EXPECT_NE(root.Output().find("ran from " + priv + " as root"), std::string::npos) << root.Output();
  // Only in the root-only directory: refused before anything runs, saying why and what to do.
  ReamRun& none = Run({"exec", "--", program}, milliseconds(30000), &e, {{"PATH", priv + rest}});
  const std::string out = none.Output();
  EXPECT_NE(e.exit_code, 0) << out;
  EXPECT_EQ(out.find("ran from"), std::string::npos) << out;
  EXPECT_NE(out.find("'" + program + "' is not found for user ream"), std::string::npos) << out;
  EXPECT_NE(out.find("PATH=" + priv + rest), std::string::npos) << out;
  EXPECT_NE(out.find("may not search " + priv), std::string::npos) << out;
  EXPECT_NE(out.find("--user root"), std::string::npos) << out;
  fs::remove_all(base);
}

// A manager's moves reach the running tenant's cgroup: the files the partition was made with
// hold the new levels, the partition as kept says so, and the class goes back to normal.
TEST(ProcessSandboxMove, WritesTheKnobsOfARunningTenantToItsCgroup) {
  if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
  auto kind = MakeProcessSandboxKind(*host);
  SandboxOptions o;
  o.partition.cpu_quota = 0.5;
  o.cleanup_dead_runs = false;
  auto sb = kind->Start(o, {"sleep", "30"});
  ASSERT_TRUE(sb.ok()) << sb.status().ToString();
  auto* process = dynamic_cast<ProcessSandbox*>(sb->get());
  ASSERT_NE(process, nullptr);
  Cgroup& cg = const_cast<Cgroup&>(*process->cgroup());
  const KnobTable& knobs = BuiltinKnobs();
  auto file = [&](const char* name) { return Trim(cg.Read("cpu", name).value_or("<unreadable>")); };
  EXPECT_EQ(file(cg.version() == 1 ? "cpu.cfs_quota_us" : "cpu.max").substr(0, 5), "50000");
  ASSERT_TRUE((*sb)->Move(*knobs.Find("cpu_quota"), 0.2).ok());
  EXPECT_EQ(file(cg.version() == 1 ? "cpu.cfs_quota_us" : "cpu.max").substr(0, 5), "20000");
  EXPECT_DOUBLE_EQ(*process->partition().cpu_quota, 0.2);
  EXPECT_DOUBLE_EQ(*(*sb)->monitor_target().cpu_quota, 0.2);
  ASSERT_TRUE((*sb)->Move(*knobs.Find("cpu_idle"), 0).ok());
  EXPECT_EQ(file("cpu.idle"), "1");
  ASSERT_TRUE((*sb)->Move(*knobs.Find("cpu_idle"), 1).ok());
  EXPECT_EQ(file("cpu.idle"), "0");
  ASSERT_TRUE((*sb)->Move(*knobs.Find("cpu_weight"), 50).ok());
  if (cg.version() == 1) EXPECT_EQ(file("cpu.shares"), "512");
  // A knob a manager cannot move is refused, naming it; the tenant runs on.
  Status fixed = (*sb)->Move(*knobs.Find("memory"), 1e9);
  EXPECT_FALSE(fixed.ok());
  EXPECT_NE(fixed.message().find("memory"), std::string::npos) << fixed.message();
  Status ways = (*sb)->Move(*knobs.Find("llc_ways"), 2);
  EXPECT_EQ(ways.code(), StatusCode::kUnsupported);
  EXPECT_NE(ways.message().find("resctrl"), std::string::npos) << ways.message();
  EXPECT_TRUE((*sb)->Alive());
  EXPECT_TRUE((*sb)->Stop().ok());
}

}  // namespace
}  // namespace ream
