// Client nodes over OpenSSH end to end: two network namespaces, each running its own
// Debian sshd (a throwaway host key and authorized key made here, listening only inside its
// namespace), reached by `ream run` through a [nodes] spec. The merged point must equal one
// generator at the same total rate within noise; a killed agent must give an invalid point
// naming it, no hang, and no agent left; ssh's refusals must read clearly.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/stats.h"
#include "load/histogram.h"
#include "platform/integration_test_support.h"
#include "platform/stall_probe.h"
#include "store/store.h"

namespace ream {
namespace {

// The floor up to which this file's comparisons are judged (platform/stall_probe.h): two agents against one generator: seen 40 % apart at p50 at a 5.2 % floor (6 Dec 2026), judged up to 5 % as before.
constexpr double kFloorLimit = 0.05;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using testing_support::Exec;
using testing_support::Sh;

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The pids of `ream agent` processes in namespace `ns` (argv[1] == "agent").
std::vector<int> AgentsIn(const std::string& ns) {
  std::vector<int> out;
  std::istringstream pids(Sh("ip netns pids " + ns).output);
  for (int pid; pids >> pid;) {
    std::string cmd = Read("/proc/" + std::to_string(pid) + "/cmdline");
    std::vector<std::string> argv;
    std::string cur;
    for (char c : cmd) {
      if (c == '\0') {
        argv.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (argv.size() >= 2 && argv[1] == "agent" && fs::path(argv[0]).filename().string().rfind("ream", 0) == 0) {
      out.push_back(pid);
    }
  }
  return out;
}

// Agents exit when their session closes; allow them a moment.
bool NoAgentsLeft(const std::vector<std::string>& namespaces) {
  auto deadline = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    bool none = true;
    for (const auto& ns : namespaces) none = none && AgentsIn(ns).empty();
    if (none) return true;
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

class NodesIntegration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) return;
    if (!fs::exists("/usr/sbin/sshd")) return;
    // What an earlier run of this test left when it was killed (its namespaces hold the same
    // addresses): the namespaces of pids that no longer exist.
    {
      std::istringstream list(Sh("ip netns list").output);
      for (std::string line; std::getline(list, line);) {
        std::string ns = line.substr(0, line.find(' '));
        if (ns.rfind("reamnodes", 0) != 0 || ns.size() < 11) continue;
        std::string pid = ns.substr(9, ns.size() - 10);
        if (fs::exists("/proc/" + pid)) continue;
        Sh("ip netns pids " + ns + " | xargs -r kill -9");
        Sh("ip netns del " + ns);
      }
    }
    const std::string tag = std::to_string(getpid() % 100000);
    dir_ = new std::string((fs::temp_directory_path() / ("ream-nodes-it-" + tag)).string());
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    const std::string& d = *dir_;
    ok_ = false;
    auto must = [&](const std::string& cmd) {
      Exec e = Sh(cmd);
      if (e.code != 0) setup_error_ += "'" + cmd + "' failed: " + e.output + "\n";
      return e.code == 0;
    };
    // sshd's privilege-separation directory; created (and later removed) only when absent.
    if (!fs::exists("/run/sshd")) {
      fs::create_directories("/run/sshd");
      made_run_sshd_ = true;
    }
    if (!must("ssh-keygen -q -t ed25519 -N '' -f " + d + "/host_key") ||
        !must("ssh-keygen -q -t ed25519 -N '' -f " + d + "/other_host_key") ||
        !must("ssh-keygen -q -t ed25519 -N '' -f " + d + "/client_key") ||
        !must("ssh-keygen -q -t ed25519 -N '' -f " + d + "/stranger_key") ||
        !must("cp " + d + "/client_key.pub " + d + "/authorized_keys")) {
      return;
    }
    std::string host_pub = Read(d + "/host_key.pub");
    std::string other_pub = Read(d + "/other_host_key.pub");
    std::ofstream known(d + "/known_hosts"), wrong(d + "/known_hosts_wrong"), cfg(d + "/ssh_config");
    for (int i = 0; i < 2; ++i) {
      std::string ns = "reamnodes" + tag + (i ? "b" : "a");
      std::string veth_host = "rn" + tag + (i ? "b" : "a");
      std::string veth_ns = veth_host + "n";
      std::string net = "10.213." + std::to_string(i + 1);
      namespaces_.push_back(ns);
      if (!must("ip netns add " + ns) ||
          !must("ip link add " + veth_host + " type veth peer name " + veth_ns + " netns " + ns) ||
          !must("ip addr add " + net + ".1/24 dev " + veth_host) || !must("ip link set " + veth_host + " up") ||
          !must("ip -n " + ns + " addr add " + net + ".2/24 dev " + veth_ns) ||
          !must("ip -n " + ns + " link set " + veth_ns + " up") || !must("ip -n " + ns + " link set lo up") ||
          !must("ip -n " + ns + " route add default via " + net + ".1")) {
        return;
      }
      std::string cache = d + "/cache" + std::to_string(i);
      std::ofstream(d + "/sshd" + std::to_string(i) + ".conf")
          << "ListenAddress " << net << ".2\nPort 22\nHostKey " << d << "/host_key\n"
          << "AuthorizedKeysFile " << d << "/authorized_keys\nPubkeyAuthentication yes\n"
          << "PasswordAuthentication yes\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
          << "StrictModes no\nUsePAM no\nPidFile none\nSubsystem sftp internal-sftp\n"
          << "SetEnv XDG_CACHE_HOME=" << cache << "\nLogLevel ERROR\n";
      pid_t pid = fork();
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed test leaves no sshd listening
        std::string log = d + "/sshd" + std::to_string(i) + ".log";
        int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
          dup2(fd, 1);
          dup2(fd, 2);
        }
        // nsenter, not `ip netns exec`: that one mounts a sysfs of its own on /sys, which hides
        // /sys/fs/cgroup, and the first namespace stands for a workload's host, whose agent
        // makes cgroups (as on a real machine, where sshd sees the host's /sys).
        const std::string net = "--net=/run/netns/" + ns;
        execlp("nsenter", "nsenter", net.c_str(), "/usr/sbin/sshd", "-D", "-e", "-f",
               (d + "/sshd" + std::to_string(i) + ".conf").c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      sshd_pids_.push_back(pid);
      std::string alias = i ? "cnb" : "cna";
      known << net << ".2 " << host_pub;
      wrong << net << ".2 " << other_pub;
      for (const auto& [name, key, hosts] :
           std::vector<std::tuple<std::string, std::string, std::string>>{{alias, "client_key", "known_hosts"},
                                                                           {alias + "-stranger", "stranger_key", "known_hosts"},
                                                                           {alias + "-wrongkey", "client_key", "known_hosts_wrong"}}) {
        cfg << "Host " << name << "\n  HostName " << net << ".2\n  User root\n  IdentityFile " << d << "/" << key
            << "\n  IdentitiesOnly yes\n  UserKnownHostsFile " << d << "/" << hosts
            << "\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n";
      }
    }
    known.close();
    wrong.close();
    cfg.close();
    // Both sshds answer before any test runs.
    auto deadline = Clock::now() + std::chrono::seconds(10);
    for (const char* alias : {"cna", "cnb"}) {
      for (;;) {
        Exec e = Sh("ssh -F " + d + "/ssh_config -o BatchMode=yes " + alias + " true");
        if (e.code == 0) break;
        if (Clock::now() > deadline) {
          setup_error_ += std::string("sshd for ") + alias + " never answered: " + e.output + Read(d + "/sshd0.log");
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    ok_ = true;
  }

  static void TearDownTestSuite() {
    for (pid_t pid : sshd_pids_) {
      kill(pid, SIGTERM);
      int st;
      waitpid(pid, &st, 0);
    }
    sshd_pids_.clear();
    // Whatever still runs in the namespaces (sessions of the sshds), then the namespaces: their
    // veth ends go with them, and the host ends with those.
    for (const auto& ns : namespaces_) {
      Sh("ip netns pids " + ns + " | xargs -r kill -9");
      Sh("ip netns del " + ns);
    }
    namespaces_.clear();
    if (made_run_sshd_) fs::remove_all("/run/sshd");
    if (dir_) {
      fs::remove_all(*dir_);
      delete dir_;
      dir_ = nullptr;
    }
  }

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces, sshd)";
    if (!fs::exists("/usr/sbin/sshd")) GTEST_SKIP() << "needs Debian's openssh-server (scripts/install-deps)";
    ASSERT_TRUE(ok_) << setup_error_;
    db_ = *dir_ + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
  }

  std::string Spec(const std::string& name, const std::string& nodes, const std::string& qps) {
    std::string path = *dir_ + "/" + name + ".toml";
    std::ofstream(path) << "name = \"" << name << "\"\nscenarios = [\"1-ST\"]\n"
                        << "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"exp:100us\"]\nthreads = 1\n"
                        << "[load]\nconnections = 4\nwarmup = \"500ms\"\nduration = \"2s\"\nattempts = 1\n"
                        << "response_timeout = \"500ms\"\ntimely_tolerance = \"500us\"\n"
                        << "[sweep]\nqps = [" << qps << "]\n[qos]\ntarget = \"5ms\"\n"
                        << "[nodes]\n" << nodes << "ssh_config = \"" << *dir_ << "/ssh_config\"\n"
                        << "workload_address = \"10.213.1.1\"\n"
                        // This one host has 2 CPUs: the workload on CPU 0, every generator on
                        // CPU 1 (the agents here, the single generator below), so both sides of
                        // the comparison share the same CPUs.
                        << "client_cpus = \"1\"\n";
    return path;
  }

  Exec Run(const std::string& spec) { return Sh(std::string(REAM_BINARY) + " run " + spec + " --db " + db_); }

  std::vector<PointRecord> Points(const std::string& experiment) {
    auto s = Store::OpenReadOnly(db_);
    if (!s.ok()) return {};
    auto e = s->FindExperiment(experiment);
    if (!e.ok() || !e->has_value()) return {};
    auto runs = s->ListRuns((*e)->id);
    if (!runs.ok() || runs->empty()) return {};
    auto points = s->ListPoints((*runs)[0].id);
    return points.ok() ? *points : std::vector<PointRecord>{};
  }

  static std::string* dir_;
  static bool ok_;
  static bool made_run_sshd_;
  static std::string setup_error_;
  static std::vector<std::string> namespaces_;
  static std::vector<pid_t> sshd_pids_;
  std::string db_;
};

std::string* NodesIntegration::dir_ = nullptr;
bool NodesIntegration::ok_ = false;
bool NodesIntegration::made_run_sshd_ = false;
std::string NodesIntegration::setup_error_;
std::vector<std::string> NodesIntegration::namespaces_;
std::vector<pid_t> NodesIntegration::sshd_pids_;

Histogram LatencyOf(const nlohmann::json& generator) {
  auto h = Histogram::Decode(generator["histograms"]["latency_ns"].get<std::string>());
  return h.ok() ? *h : Histogram();
}

bool Overlap(const analysis::PercentileCi& a, const analysis::PercentileCi& b) { return a.low <= b.high && b.low <= a.high; }

TEST_F(NodesIntegration, TwoSshClientsMergeToWhatOneGeneratorMeasures) {
  const double qps = 2000;
  // One generator at the same total rate, from one client namespace over the same kind of
  // path, against the same server (its builtin, on the CPU the scenario gave it: CPU 0),
  // measured before and after the agents' point. It runs two threads on CPU 1, as the two
  // agents run two schedules there: two schedules on one CPU delay each other (one's spin
  // before a send holds the CPU the other is due on), and a single-threaded reference does
  // not pay that. Against one thread the agents' p99 read 798-995 us and the reference's
  // 676-733 us on a quiet host (4 Dec 2026): the CPU's sharing, not the merge.
  Exec serve_port = Sh("taskset -c 0 " + std::string(REAM_BINARY) +
                       " serve synthetic --bind 0.0.0.0 --port 0 --threads 1 --service exp:100us > " + *dir_ +
                       "/serve.out 2>&1 & echo $!");
  int serve_pid = std::atoi(serve_port.output.c_str());
  struct Stop {
    int* pid;
    ~Stop() {
      if (*pid > 0) kill(*pid, SIGTERM);
    }
  } stop_server{&serve_pid};
  std::string ready;
  for (int i = 0; i < 400 && ready.find('\n', ready.find("ready ")) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ready = Read(*dir_ + "/serve.out");
  }
  ASSERT_NE(ready.find("ready "), std::string::npos) << "the server never became ready: " << ready;
  std::string port = ready.substr(ready.find(':', ready.find("ready ")) + 1);
  port = port.substr(0, port.find_first_not_of("0123456789"));
  // Run before and after the agents' point: the host's noise moves between runs made one after
  // the other, and the two runs of one generator show by how much.
  auto RunOne = [&](const std::string& name) -> nlohmann::json {
    Exec local = Sh("ip netns exec " + namespaces_[0] + " " + REAM_BINARY + " load --target 10.213.1.1:" + port +
                    " --protocol ream --qps 2000 --duration 2s --warmup 500ms --connections 4 --threads 2 --keys 100000"
                    " --timely-tolerance 500us --response-timeout 500ms --cpus 1 --json " + *dir_ + "/" + name +
                    ".json");
    EXPECT_EQ(local.code, 0) << local.output;
    if (local.code != 0) return nlohmann::json::object();
    return nlohmann::json::parse(Read(*dir_ + "/" + name + ".json"));
  };
  nlohmann::json before = RunOne("before");
  Exec remote = Run(Spec("remote", "clients = [\"ssh:cna\", \"ssh:cnb\"]\n", "2000"));
  ASSERT_EQ(remote.code, 0) << remote.output;
  // Neither namespace had ream: the binary was copied to each, and said so.
  EXPECT_NE(remote.output.find("ssh:cna: has no ream on its PATH; copied this ream"), std::string::npos)
      << remote.output;
  EXPECT_NE(remote.output.find("ssh:cnb: has no ream on its PATH; copied this ream"), std::string::npos)
      << remote.output;
  auto points = Points("remote");
  ASSERT_EQ(points.size(), 1u) << remote.output;
  const PointRecord& p = points[0];
  ASSERT_EQ(p.status, PointStatus::kOk) << p.failure;
  ASSERT_TRUE(p.generator.contains("agents")) << p.generator.dump();
  ASSERT_EQ(p.generator["agents"].size(), 2u);
  uint64_t issued_by_agents = 0;
  for (const auto& a : p.generator["agents"]) {
    EXPECT_NEAR(a["target_qps"].get<double>(), qps / 2, 1e-9);
    issued_by_agents += a["issued"].get<uint64_t>();
    // Both namespaces share this host's clock: the offset measured is within the round trip.
    EXPECT_LE(std::abs(a["clock"]["offset_ns"].get<int64_t>()), a["clock"]["rtt_ns"].get<int64_t>() + 50'000)
        << a.dump();
    EXPECT_GE(a["clock"]["samples"].get<int>(), 5);
  }
  EXPECT_EQ(static_cast<uint64_t>(*p.issued), issued_by_agents);
  EXPECT_TRUE(NoAgentsLeft(namespaces_));

  nlohmann::json after = RunOne("after");
  kill(serve_pid, SIGTERM);
  serve_pid = -1;
  ASSERT_FALSE(HasFatalFailure());

  // The achieved rate: each within the schedule's own Poisson spread of the target.
  double limit = 3.0 / std::sqrt(qps * 2.0);
  EXPECT_NEAR(*p.achieved_qps / qps, 1.0, limit);
  EXPECT_NEAR(before["achieved_qps"].get<double>() / qps, 1.0, limit);
  EXPECT_NEAR(after["achieved_qps"].get<double>() / qps, 1.0, limit);
  // p50 and p99: the merged histogram's confidence interval overlaps the span of the single
  // generator's two (before and after). The store keeps the point's histograms in rows of
  // their own (kind "sojourn").
  Histogram merged;
  {
    auto s = Store::OpenReadOnly(db_);
    ASSERT_TRUE(s.ok());
    auto hs = s->GetHistograms(p.id);
    ASSERT_TRUE(hs.ok() && hs->count(kHistSojourn));
    merged = hs->at(kHistSojourn);
  }
  ASSERT_GT(merged.count(), 1000u) << p.generator["invalid_reasons"].dump() << p.generator["agents"].dump().substr(0, 2000);
  Histogram single_before = LatencyOf(before), single_after = LatencyOf(after);
  // The percentiles compare runs made one after the other: on a host whose CPUs stall (other
  // builds, a hypervisor) they are the host's, not the generators' (measured here at 36-61 % of
  // a pinned spin loop's time lost, p50 334 us in one run and 864 us in the next); they are
  // then printed, not judged, as the model tests do (platform/stall_probe.h). Even on a quiet
  // host the noise moves between runs (one generator's p50 163 us in one run and 169 us in the
  // next, 99 % intervals 6 us wide; 150 and 169 us in two runs 15 s apart, at 1.4-6 % stalls):
  // the span of the two single-generator runs around the agents' point is what one generator
  // measures on this host in that minute.
  // Beyond JudgeableFloor they are printed only; below it the span is widened by the floor too.
  const double floor = HostFloor();
  const bool quiet = floor <= JudgeableFloor(kFloorLimit);
  for (double q : {0.50, 0.99}) {
    auto a = analysis::PercentileConfidence(merged, q, 0.99);
    auto b1 = analysis::PercentileConfidence(single_before, q, 0.99);
    auto b2 = analysis::PercentileConfidence(single_after, q, 0.99);
    ASSERT_TRUE(a && b1 && b2);
    analysis::PercentileCi span = *b1;
    // Widened by how far the two single runs are apart: the agents may differ from one
    // generator by as much as one generator differs from itself a few seconds later.
    const double drift = std::abs(b2->value - b1->value);
    const double by_floor = ToleranceOnFloor(0, floor) * b1->value;
    span.low = std::min(b1->low, b2->low) - drift - by_floor;
    span.high = std::max(b1->high, b2->high) + drift + by_floor;
    std::ostringstream what;
    what << "p" << q * 100 << ": agents " << a->value / 1e3 << " us [" << a->low / 1e3 << ", " << a->high / 1e3
         << "], one generator before " << b1->value / 1e3 << " us [" << b1->low / 1e3 << ", " << b1->high / 1e3
         << "], after " << b2->value / 1e3 << " us [" << b2->low / 1e3 << ", " << b2->high / 1e3
         << "]; judged against [" << span.low / 1e3 << ", " << span.high / 1e3 << "]";
    std::printf("%s\n", what.str().c_str());
    if (quiet) {
      EXPECT_TRUE(Overlap(*a, span)) << what.str();
    } else {
      std::printf("  (not judged: this host's CPUs stall %.2f %% of the time, beyond %.0f %%)\n", 100 * floor,
                  100 * JudgeableFloor(kFloorLimit));
    }
  }
  // A second run finds the copies in the cache and copies nothing.
  Exec again = Run(Spec("remote2", "clients = [\"ssh:cna\", \"ssh:cnb\"]\n", "1000"));
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(again.output.find("copied this ream"), std::string::npos) << again.output;
  EXPECT_TRUE(NoAgentsLeft(namespaces_));
}

TEST_F(NodesIntegration, AKilledAgentMakesThePointInvalidNamingItTheNextRunsOnTheOtherNoAgentIsLeft) {
  std::string spec =
      Spec("killed", "clients = [\"ssh:cna\", \"ssh:cnb\"]\non_agent_loss = \"continue\"\n", "1000, 1200");
  Exec run;
  auto t0 = Clock::now();
  std::thread runner([&] { run = Run(spec); });
  // The agent in the first namespace, once its generator runs (it has threads then), well
  // inside the measured window.
  int victim = -1;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (victim < 0 && Clock::now() < deadline) {
    for (int pid : AgentsIn(namespaces_[0])) {
      // Counted without exceptions: the agent may exit while its threads are listed.
      std::error_code ec;
      int tasks = 0;
      for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/task", ec), end; !ec && it != end;
           it.increment(ec)) {
        ++tasks;
      }
      if (!ec && tasks >= 2) victim = pid;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (victim > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    kill(victim, SIGKILL);
  }
  runner.join();
  double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_GT(victim, 0) << "no running agent found in " << namespaces_[0] << "; the run said:\n" << run.output;
  // No hang: the level's window and the bounded waits, not a timeout's worth.
  EXPECT_LT(seconds, 30.0) << run.output;
  auto points = Points("killed");
  ASSERT_GE(points.size(), 1u) << run.output;
  EXPECT_EQ(points[0].valid, std::optional<bool>(false)) << points[0].generator.dump();
  std::string reasons;
  for (const auto& r : points[0].invalid_reasons) reasons += r + "\n";
  EXPECT_NE(reasons.find("agent ssh:cna"), std::string::npos) << reasons;
  // on_agent_loss = "continue": the next level runs on the other agent, at the whole rate.
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("agent ssh:cna lost"), std::string::npos) << run.output;
  ASSERT_EQ(points.size(), 2u) << run.output;
  const nlohmann::json& second = points[1].generator;
  ASSERT_EQ(second["agents"].size(), 1u) << second.dump();
  EXPECT_EQ(second["agents"][0]["name"], "ssh:cnb");
  EXPECT_NEAR(second["agents"][0]["target_qps"].get<double>(), 1200, 1e-9);
  EXPECT_NEAR(*points[1].achieved_qps / 1200, 1.0, 3.0 / std::sqrt(1200 * 2.0));
  EXPECT_TRUE(NoAgentsLeft(namespaces_)) << "agents left in the namespaces";
}

TEST_F(NodesIntegration, PasswordHostAndHostKeyMismatchFailAtOnceWithTheReason) {
  auto t0 = Clock::now();
  Exec password = Run(Spec("password", "clients = [\"ssh:cna-stranger\"]\n", "1000"));
  EXPECT_NE(password.code, 0);
  EXPECT_NE(password.output.find("asked for a password or refused the key"), std::string::npos) << password.output;
  EXPECT_NE(password.output.find("BatchMode=yes"), std::string::npos) << password.output;
  Exec hostkey = Run(Spec("hostkey", "clients = [\"ssh:cnb-wrongkey\"]\n", "1000"));
  EXPECT_NE(hostkey.code, 0);
  EXPECT_NE(hostkey.output.find("host key of cnb-wrongkey does not match"), std::string::npos) << hostkey.output;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 20.0);
  EXPECT_TRUE(NoAgentsLeft(namespaces_));
}

// A workload on an ssh host ([nodes] workload, item 5): the first namespace's sshd is the
// workload's host. Its agent (logged in as root there) makes the sandbox with the partition on
// that host's kernel, runs the builtin from its own ream, and samples it; the load comes from
// this host through the veth. Both namespaces share this machine's kernel, so the agent's
// cgroups are seen here, named for its pid.
std::string WorkloadHostSpec(const std::string& dir, const std::string& name, const std::string& qps,
                             const std::string& duration) {
  std::string path = dir + "/" + name + ".toml";
  std::ofstream(path) << "name = \"" << name << "\"\nscenarios = [\"1-ST\"]\n"
                      << "[partitions]\nmemory = \"256M\"\n"
                      << "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"exp:100us\"]\n"
                      << "[load]\nconnections = 4\nwarmup = \"500ms\"\nduration = \"" << duration << "\"\nattempts = 1\n"
                      << "response_timeout = \"500ms\"\ntimely_tolerance = \"500us\"\n"
                      << "[sweep]\nqps = [" << qps << "]\n[qos]\ntarget = \"5ms\"\n"
                      << "[nodes]\nworkload = \"ssh:cna\"\nworkload_address = \"10.213.1.2\"\n"
                      << "ssh_config = \"" << dir << "/ssh_config\"\n";
  return path;
}

// The agent in `ns` while it runs a workload (it has started one: a ream-PID-N cgroup exists).
int WorkloadAgentIn(const std::string& ns) {
  for (int pid : AgentsIn(ns)) {
    if (!testing_support::ReamObjectsOf(pid).empty()) return pid;
  }
  return -1;
}

TEST_F(NodesIntegration, AWorkloadOnAnSshHostRunsInASandboxThereIsMonitoredThereAndLeavesNothing) {
  // Levels 10x apart: at a few hundred QPS each request also pays the host's idle wake-ups
  // (tens to hundreds of µs of the server's CPU, varying by the hour), so two levels 2x apart
  // could invert (0.254 CPU-s at 500 QPS against 0.236 at 1 000 on a noisy instance).
  const std::string spec = WorkloadHostSpec(*dir_, "onhost", "200, 2000", "1500ms");
  Exec run;
  std::thread runner([&] { run = Run(spec); });
  // While it runs: the agent in the workload's namespace holds the sandbox, as root there, and
  // the memory limit is the partition's.
  int agent = -1;
  std::string objects;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (agent < 0 && Clock::now() < deadline) {
    agent = WorkloadAgentIn(namespaces_[0]);
    if (agent > 0) objects = testing_support::ReamObjectsOf(agent);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string limit;
  if (agent > 0) limit = Read("/sys/fs/cgroup/memory/ream-" + std::to_string(agent) + "-1/memory.limit_in_bytes");
  runner.join();
  ASSERT_EQ(run.code, 0) << run.output;
  ASSERT_GT(agent, 0) << "no agent in " << namespaces_[0] << " held a sandbox; the run said:\n" << run.output;
  EXPECT_EQ(std::atoll(limit.c_str()), 256LL << 20) << objects;
  auto points = Points("onhost");
  ASSERT_EQ(points.size(), 2u) << run.output;
  for (const PointRecord& p : points) {
    ASSERT_EQ(p.status, PointStatus::kOk) << p.failure;
    EXPECT_NEAR(*p.achieved_qps / p.target_load, 1.0, 3.0 / std::sqrt(p.target_load * 1.5));
    // The server's figures were sampled on its host: its cgroup's CPU time, its memory.
    ASSERT_TRUE(p.cpu_util.has_value()) << p.monitor.dump();
    EXPECT_GT(*p.cpu_util, 0.0);
    ASSERT_TRUE(p.server_cpu_s.has_value());
    ASSERT_TRUE(p.mem_bytes.has_value()) << p.monitor.dump();
    EXPECT_GT(*p.mem_bytes, 0.0);
    EXPECT_TRUE(p.service_reported.value_or(false));  // ream's protocol, from the remote builtin
    // The CPU sampled there holds the work the load gave the server: the synthetic server spins
    // each service (exp:100us, WorkloadHostSpec) on the CPU, so its cgroup's CPU time per second
    // is at least the answers per second x 100 us, while wake-ups and system calls only add to
    // it. A monitor of another cgroup or host, or none, fails this. Compared as rates, so the
    // monitor's window and the generator's need not be the same length. The spec's mean, not
    // the reported one: the spin is timed by the clock, so a preemption inside it inflates the
    // reported service by milliseconds where the CPU time it costs is bounded by the service.
    // 0.75: the mean of the lower level's ~285 exponential draws is under 75 us with odds of
    // about 2e-6.
    ASSERT_TRUE(p.throughput_qps.has_value()) << p.generator.dump().substr(0, 2000);
    const double monitored_s =
        p.monitor.is_object() && p.monitor.contains("duration_s") ? p.monitor["duration_s"].get<double>() : 0;
    ASSERT_GT(monitored_s, 0) << p.monitor.dump().substr(0, 2000);
    const double cpu_per_s = *p.server_cpu_s / monitored_s;
    const double work_per_s = *p.throughput_qps * 100e-6;
    std::printf("%.0f QPS: the server's CPU %.3f s in %.2f s, %.3f per s, against %.3f per s of service "
                "(%.0f answers a second x 100 us; reported mean %.1f us)\n",
                p.target_load, *p.server_cpu_s, monitored_s, cpu_per_s, work_per_s, *p.throughput_qps,
                p.service_mean_us.value_or(0));
    EXPECT_GE(cpu_per_s, 0.75 * work_per_s) << p.monitor.dump().substr(0, 2000);
  }
  // More load, more of the server's CPU: ten times the work (0.3 CPU-s against 0.03 in the
  // window) is beyond what the lower level's wake-ups add (~0.1 CPU-s at 300 µs a request).
  EXPECT_GT(*points[1].server_cpu_s, *points[0].server_cpu_s);
  // The stored machine is the workload's host, and says so.
  {
    auto s = Store::OpenReadOnly(db_);
    ASSERT_TRUE(s.ok());
    auto e = s->FindExperiment("onhost");
    ASSERT_TRUE(e.ok() && e->has_value());
    auto env = s->GetEnvironment((*e)->id);
    ASSERT_TRUE(env.ok() && env->has_value());
    EXPECT_NE((*env)->doctor.dump().find("ssh:cna (hostname"), std::string::npos) << (*env)->doctor.dump();
  }
  // Nothing of the agent's is left, and the agent itself is gone.
  EXPECT_TRUE(NoAgentsLeft(namespaces_));
  EXPECT_EQ(testing_support::ReamObjectsOf(agent), "");
  EXPECT_EQ(Sh("ip netns pids " + namespaces_[0] + " | xargs -r -I{} cat /proc/{}/cmdline | tr '\\0' ' ' | grep -c 'serve synthetic'").output, "0\n")
      << "a workload left in " << namespaces_[0];
}

// Co-runners on any sandbox: one on a node of its own (its own namespace and veth, a server of
// ream's under a load of its own from this host's generator CPUs), one on an ssh host (a source
// of interference in a sandbox that host's agent makes and samples), beside a subject on this
// host; each measured alone and beside the subject, read back from the store and analysed, and
// nothing left behind: no cgroup, namespace, veth or process of ream's, no agent.
TEST_F(NodesIntegration, CorunnersOnANodeAndOnAnSshHostAreMeasuredAloneAndTogetherAndLeaveNothing) {
  const std::string marker = std::to_string(30000 + getpid() % 10000);
  const std::string path = *dir_ + "/places.toml";
  std::ofstream(path) << "name = \"places\"\nscenarios = [\"1-ST\"]\n"
                      << "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"exp:50us\"]\n"
                      << "[load]\nconnections = 2\nwarmup = \"300ms\"\nduration = \"1s\"\nattempts = 1\n"
                      << "response_timeout = \"300ms\"\ntimely_tolerance = \"500us\"\n"
                      // What is checked is where the tenants ran and what was measured of them, not
                      // the subject's timeliness on a 2-CPU host shared with a load of its own and
                      // a source of interference: the seed's rule, loosely, so the point counts.
                      << "[sweep]\nqps = [500]\n[qos]\ntarget = \"5ms\"\nvalidity = \"seed\"\n"
                      << "min_timely_ratio = 0.5\n"
                      << "[nodes]\nssh_config = \"" << *dir_ << "/ssh_config\"\n"
                      << "[[corunner]]\nname = \"onnode\"\nbuiltin = \"kv\"\nargs = [\"--records\", \"" << marker
                      << "\"]\nsandbox = \"node\"\n[corunner.load]\nqps = 400\n"
                      // On the subject's CPU 0 there (the ssh host is this machine), off the
                      // generator's CPU 1.
                      << "[[corunner]]\nname = \"onhost\"\npressure = \"cpu\"\nintensity = 50\nsandbox = \"ssh:cna\"\n"
                      << "cpus = \"0\"\n";
  Exec run;
  std::thread runner([&] { run = Run(path); });
  // While it runs: this run's ream (whose objects are checked after it), and the agent in the
  // ssh host's namespace holding the co-runner's sandbox.
  int ream = -1, agent = -1;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while ((ream < 0 || agent < 0) && Clock::now() < deadline) {
    for (int pid : testing_support::ProcessesWith(std::string(REAM_BINARY) + " run " + path)) {
      std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
      std::string name;
      if (std::getline(comm, name) && name.rfind("ream", 0) == 0) ream = pid;
    }
    if (agent < 0) agent = WorkloadAgentIn(namespaces_[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  runner.join();
  ASSERT_EQ(run.code, 0) << run.output;
  ASSERT_GT(ream, 0) << run.output;
  ASSERT_GT(agent, 0) << "no agent in " << namespaces_[0] << " held the co-runner's sandbox:\n" << run.output;

  auto s = Store::OpenReadOnly(db_);
  ASSERT_TRUE(s.ok());
  auto e = s->FindExperiment("places");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = s->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  const RunRecord* shared = nullptr;
  for (const auto& r : *runs) {
    if (!r.key.corunner_set.empty()) shared = &r;
  }
  ASSERT_NE(shared, nullptr) << run.output;
  // Where each ran, as described with the run, and what it measured alone.
  ASSERT_TRUE(shared->corunners.has_value()) << run.output;
  for (const CorunnerRecord& c : shared->corunners->corunners) {
    EXPECT_EQ(c.place, c.name == "onnode" ? "node" : "ssh:cna") << c.name;
    ASSERT_TRUE(c.alone.has_value()) << c.name;
  }
  auto points = s->ListPoints(shared->id);
  ASSERT_TRUE(points.ok() && points->size() == 1u);
  const CorunnerRecord* node_rec = shared->corunners->Find("onnode");
  const CorunnerRecord* host_rec = shared->corunners->Find("onhost");
  ASSERT_TRUE(node_rec && host_rec);
  for (const auto& [where, node, host] : std::vector<std::tuple<std::string, TenantFigures, TenantFigures>>{
           {"alone", *node_rec->alone, *host_rec->alone},
           {"together", (*points)[0].corunners.at("onnode"), (*points)[0].corunners.at("onhost")}}) {
    // The node's server served its own load, reached over its veth: the rate asked for, a tail,
    // and its own cgroup's CPU (an idle kv server uses none).
    ASSERT_TRUE(node.load.has_value()) << where << ": " << node.ToJson().dump();
    ASSERT_TRUE(node.load->measured()) << where << ": " << node.ToJson().dump();
    ASSERT_TRUE(node.load->achieved_qps && node.load->latency_p95_us && node.cpu_util) << node.ToJson().dump();
    // Open loop at 400/s over a 1 s window: three standard deviations of a Poisson count.
    EXPECT_NEAR(*node.load->achieved_qps, 400, 3 * std::sqrt(400.0)) << where << ": " << node.ToJson().dump();
    EXPECT_GT(*node.load->latency_p95_us, 0) << where;
    EXPECT_GT(*node.cpu_util, 400 * 2e-6) << where << ": " << node.ToJson().dump();
    // The ssh host's source ran through the window, sampled there: its cgroup's CPU near its
    // half a CPU (0.30-0.37 here beside the subject and the node's server on CPU 0; a monitor of
    // nothing, or of another cgroup, reads none).
    std::printf("%s: onnode %.0f QPS served, p95 %.0f us, its CPU %.3f; onhost CPU share %.3f\n", where.c_str(),
                *node.load->achieved_qps, *node.load->latency_p95_us, *node.cpu_util, host.cpu_share.value_or(0));
    EXPECT_EQ(host.ended, "") << where << ": " << host.ToJson().dump();
    ASSERT_TRUE(host.cpu_share.has_value()) << where << ": " << host.ToJson().dump();
    EXPECT_GT(*host.cpu_share, 0.1) << where << ": " << host.ToJson().dump();
  }
  // The analysis sets each one's throughput alone against beside the subject.
  Exec an = Sh(std::string(REAM_BINARY) + " analyze --db " + db_ + " --json 2>/dev/null");
  ASSERT_EQ(an.code, 0) << an.output;
  auto j = nlohmann::json::parse(an.output.substr(an.output.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << an.output.substr(0, 2000);
  std::set<std::string> analysed;
  for (const auto& g : j["colocation"]["groups"]) {
    for (const auto& c : g["corunners"]) {
      analysed.insert(c["name"].get<std::string>());
      EXPECT_TRUE(c["alone"].is_number()) << c.dump();
      EXPECT_TRUE(c["together"].is_number()) << c.dump();
      EXPECT_EQ(c["measure"], c["name"] == "onnode" ? "QPS" : "CPU-s/s") << c.dump();
    }
  }
  EXPECT_EQ(analysed, (std::set<std::string>{"onnode", "onhost"})) << an.output.substr(0, 4000);
  // Nothing left: this ream's cgroups, namespaces, veths and state; the agent's sandbox and the
  // agent; the node's server.
  EXPECT_EQ(testing_support::ReamObjectsOf(ream), "");
  EXPECT_TRUE(NoAgentsLeft(namespaces_));
  EXPECT_EQ(testing_support::ReamObjectsOf(agent), "");
  // (The node's server carries the marker. What its sandbox's stop SIGKILLed may take a moment
  // to leave /proc after ream has exited: allow it that, as NoAgentsLeft does.)
  for (auto until = Clock::now() + std::chrono::seconds(5);
       !testing_support::ProcessesWith("--records " + marker).empty() && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int pid : testing_support::ProcessesWith("--records " + marker)) {
    ADD_FAILURE() << "left running: " << Read("/proc/" + std::to_string(pid) + "/cmdline");
  }
  EXPECT_EQ(Sh("ip netns pids " + namespaces_[0] + " | xargs -r -I{} cat /proc/{}/cmdline | tr '\\0' ' ' | grep -c 'pressure cpu'").output, "0\n")
      << "a co-runner left in " << namespaces_[0];
}

TEST_F(NodesIntegration, AfterASigkillOfReamTheWorkloadHostsAgentRemovesTheSandbox) {
  const std::string spec = WorkloadHostSpec(*dir_, "onhostkilled", "500, 600, 700", "3s");
  const std::string out = *dir_ + "/onhostkilled.out";
  Exec run;
  std::thread runner([&] { run = Sh(std::string(REAM_BINARY) + " run " + spec + " --db " + db_ + " > " + out + " 2>&1; cat " + out); });
  int agent = -1;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (agent < 0 && Clock::now() < deadline) {
    agent = WorkloadAgentIn(namespaces_[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<int> reams;
  if (agent > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into the first level
    reams = testing_support::ProcessesWith(std::string(REAM_BINARY) + " run " + spec);
    for (int pid : reams) kill(pid, SIGKILL);
  }
  runner.join();
  ASSERT_GT(agent, 0) << "no agent held a sandbox; the run said:\n" << run.output;
  ASSERT_FALSE(reams.empty()) << run.output;
  // ssh dies with ream, the session's end reaches the agent, which stops the workload and
  // removes its cgroups; then it exits.
  auto until = Clock::now() + std::chrono::seconds(15);
  while ((!testing_support::ReamObjectsOf(agent).empty() || !AgentsIn(namespaces_[0]).empty()) && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(testing_support::ReamObjectsOf(agent), "") << "left behind by the agent";
  EXPECT_TRUE(NoAgentsLeft(namespaces_));
  EXPECT_EQ(Sh("ip netns pids " + namespaces_[0] + " | xargs -r -I{} cat /proc/{}/cmdline | tr '\\0' ' ' | grep -c 'serve synthetic'").output, "0\n")
      << "a workload left in " << namespaces_[0];
  // What the killed ream had here (the directory of its ssh session's stderr, recorded before
  // it was made) is left for `ream cleanup`, which removes it.
  // (The shell around ream was killed too, so nothing waited for ream: wait until it is reaped,
  // or a cleanup would see its run as live.)
  auto reaped = Clock::now() + std::chrono::seconds(15);
  auto exists = [&] { return std::any_of(reams.begin(), reams.end(), [](int pid) { return kill(pid, 0) == 0; }); };
  while (exists() && Clock::now() < reaped) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(exists()) << "a SIGKILLed ream still exists after 15 s";
  std::string left;
  for (int pid : reams) left += testing_support::ReamObjectsOf(pid);
  EXPECT_NE(left.find("/tmp/ream-workload-"), std::string::npos) << left;
  Exec cleanup = Sh(std::string(REAM_BINARY) + " cleanup");
  EXPECT_EQ(cleanup.code, 0) << cleanup.output;
  for (int pid : reams) EXPECT_EQ(testing_support::ReamObjectsOf(pid), "") << cleanup.output;
}

// Local client nodes: namespaces ream makes itself ([nodes] clients = ["local:NAME"]), no
// sshd. Two of them drive the load through links shaped to link_rate, and every object they
// had is gone after the run; after a SIGKILL of ream, `ream cleanup` removes them.
class LocalNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    dir_ = (fs::temp_directory_path() / ("ream-local-nodes-" + std::to_string(getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Spec(const std::string& name, const std::string& qps, const std::string& duration,
                   const std::string& partitions = "") {
    std::string path = dir_ + "/" + name + ".toml";
    std::ofstream(path) << "name = \"" << name << "\"\nscenarios = [\"1-ST\"]\n" << partitions
                        << "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"exp:100us\"]\nthreads = 1\n"
                        << "[load]\nconnections = 4\nwarmup = \"500ms\"\nduration = \"" << duration << "\"\nattempts = 1\n"
                        << "response_timeout = \"500ms\"\ntimely_tolerance = \"500us\"\n"
                        << "[sweep]\nqps = [" << qps << "]\n[qos]\ntarget = \"5ms\"\n"
                        << "[nodes]\nclients = [\"local:a\", \"local:b\"]\nlink_rate = \"40mbit\"\n";
    return path;
  }
  // The ream pid in the namespace names the run prints ("namespace ream-PID-c1").
  static int ReamPidIn(const std::string& output) {
    auto at = output.find("namespace ream-");
    return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + 15);
  }
  std::string dir_;
};

TEST_F(LocalNodes, TwoNodesOfReamsOwnDriveTheLoadThroughShapedLinksAndLeaveNothing) {
  const std::string db = dir_ + "/local.db";
  const std::string out = dir_ + "/run.out";
  Exec run;
  std::thread runner([&] {
    run = Sh(std::string(REAM_BINARY) + " run " + Spec("local", "1000, 2000", "1500ms") + " --db " + db +
             " > " + out + " 2>&1; cat " + out);
  });
  // While it runs: each node's host end carries an htb of link_rate (the run prints the veth).
  std::set<std::string> shaped;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (shaped.size() < 2 && Clock::now() < deadline) {
    std::string text = Read(out);
    for (size_t at = text.find("(ream"); at != std::string::npos; at = text.find("(ream", at + 1)) {
      std::string dev = text.substr(at + 1, text.find(')', at) - at - 1);
      Exec tc = Sh("tc class show dev " + dev);
      if (tc.output.find("rate 40Mbit") != std::string::npos) shaped.insert(dev);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  runner.join();
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(shaped.size(), 2u) << "htb of 40mbit on both host ends; the run said:\n" << run.output;
  EXPECT_NE(run.output.find("local client node local:a: namespace ream-"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("local client node local:b: namespace ream-"), std::string::npos) << run.output;
  const int ream_pid = ReamPidIn(run.output);
  ASSERT_GT(ream_pid, 0) << run.output;
  EXPECT_EQ(testing_support::ReamObjectsOf(ream_pid), "") << "left behind by ream " << ream_pid;

  auto store = Store::OpenReadOnly(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto e = store->FindExperiment("local");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = store->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  auto points = store->ListPoints((*runs)[0].id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u) << run.output;
  for (const PointRecord& p : *points) {
    ASSERT_EQ(p.status, PointStatus::kOk) << p.failure;
    ASSERT_EQ(p.generator["agents"].size(), 2u) << p.generator.dump().substr(0, 2000);
    uint64_t issued = 0, completed = 0;
    std::set<std::string> names;
    for (const auto& a : p.generator["agents"]) {
      names.insert(a["name"].get<std::string>());
      EXPECT_NEAR(a["target_qps"].get<double>(), p.target_load / 2, 1e-9);
      issued += a["issued"].get<uint64_t>();
      completed += a["completed"].get<uint64_t>();
    }
    EXPECT_EQ(names, (std::set<std::string>{"local:a", "local:b"}));
    EXPECT_EQ(static_cast<uint64_t>(*p.issued), issued);
    // Every request reached the workload on the host through the nodes' links and was answered.
    EXPECT_EQ(completed, issued) << p.generator["agents"].dump().substr(0, 2000);
    EXPECT_NEAR(*p.achieved_qps / p.target_load, 1.0, 3.0 / std::sqrt(p.target_load * 1.5));
  }
  // `ream analyze` names each node's part of each level, with its clock.
  Exec an = Sh(std::string(REAM_BINARY) + " analyze --db " + db + " --experiment local");
  const size_t nodes_at = an.output.find(": client nodes");
  std::printf("%s\n", an.output.substr(nodes_at == std::string::npos ? 0 : an.output.rfind('\n', nodes_at) + 1, 800).c_str());
  if (an.output.find("has no valid point") == std::string::npos) {
    ASSERT_EQ(an.code, 0) << an.output;
    EXPECT_NE(an.output.find(": client nodes\n"), std::string::npos) << an.output;
    for (const char* level : {"1000 QPS, local:a: ", "1000 QPS, local:b: ", "2000 QPS, local:a: ", "2000 QPS, local:b: "}) {
      EXPECT_NE(an.output.find(level), std::string::npos) << level << " in\n" << an.output;
    }
    EXPECT_NE(an.output.find(" µs (round trip "), std::string::npos) << an.output;
  }
}

// L with client nodes: the relay accepts on every address and each agent reaches it at its
// own link's host end, so every request crosses the delay twice (there and back).
TEST_F(LocalNodes, TheirAgentsGoThroughTheRelayOfNetLatency) {
  const std::string db = dir_ + "/relay.db";
  Exec run = Sh(std::string(REAM_BINARY) + " run " +
                Spec("relay", "500", "1500ms", "[partitions]\nnet_latency = [\"0us\", \"1ms\"]\n") + " --db " + db);
  ASSERT_EQ(run.code, 0) << run.output;
  auto store = Store::OpenReadOnly(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto e = store->FindExperiment("relay");
  ASSERT_TRUE(e.ok() && e->has_value());
  auto runs = store->ListRuns((*e)->id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u) << run.output;
  std::map<std::string, double> p50;
  bool all_valid = true;
  for (const RunRecord& r : *runs) {
    auto points = store->ListPoints(r.id);
    ASSERT_TRUE(points.ok() && points->size() == 1u) << run.output;
    const PointRecord& p = (*points)[0];
    ASSERT_EQ(p.status, PointStatus::kOk) << p.failure;
    ASSERT_EQ(p.generator["agents"].size(), 2u);
    ASSERT_TRUE(p.latency_p50_us.has_value());
    p50[r.key.partition_label] = *p.latency_p50_us;
    all_valid = all_valid && p.valid.value_or(false);
  }
  ASSERT_EQ(p50.size(), 2u);
  double with = 0, without = 0;
  for (const auto& [label, value] : p50) (label.find("1ms") != std::string::npos ? with : without) = value;
  std::printf("p50 without L %.0f us, with L = 1 ms %.0f us\n", without, with);
  // Every round trip crosses the relay twice: never under 2 L.
  EXPECT_GE(with, 2000.0) << run.output;
  EXPECT_LE(with - without, 2000.0 + 1500.0) << run.output;
  // 2 L = 2 000 us added to the median, when both points are valid. (A clean clone in a noisy
  // hour had its L = 0 point invalid, 70 % timely, with a p50 of 938 us instead of ~100: the
  // difference then measures the host, not the relay.)
  if (all_valid) {
    EXPECT_GE(with - without, 1800.0) << run.output;
  } else {
    std::printf("a point was invalid (the generator could not keep its schedule): the 2 L difference is not checked\n");
  }
}

TEST_F(LocalNodes, AfterASigkillOfReamCleanupRemovesTheNodesAndNoAgentIsLeft) {
  const std::string out = dir_ + "/run.out";
  Exec run;
  std::thread runner([&] {
    run = Sh(std::string(REAM_BINARY) + " run " + Spec("killed", "1000, 1100, 1200", "3s") + " --db " + dir_ +
             "/killed.db > " + out + " 2>&1; cat " + out);
  });
  // Once both nodes exist and their agents run, kill ream outright.
  int ream_pid = -1;
  std::vector<std::string> namespaces;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    std::string text = Read(out);
    ream_pid = ReamPidIn(text);
    if (ream_pid > 0 && text.find("local:b: namespace") != std::string::npos) {
      namespaces = {"ream-" + std::to_string(ream_pid) + "-c1", "ream-" + std::to_string(ream_pid) + "-c2"};
      if (!AgentsIn(namespaces[0]).empty() && !AgentsIn(namespaces[1]).empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (namespaces.size() != 2u) {
    runner.join();
    FAIL() << "the nodes and their agents never appeared; the run said:\n" << run.output;
  }
  // The agents hold no privilege: they run as the workloads' account, not as root.
  for (const auto& ns : namespaces) {
    for (int pid : AgentsIn(ns)) {
      std::string status = Read("/proc/" + std::to_string(pid) + "/status");
      auto at = status.find("\nUid:\t");
      ASSERT_NE(at, std::string::npos) << status;
      EXPECT_NE(std::atoi(status.c_str() + at + 6), 0) << "agent " << pid << " in " << ns << " runs as root";
      EXPECT_NE(status.find("CapEff:\t0000000000000000"), std::string::npos) << status;
    }
  }
  ASSERT_EQ(kill(ream_pid, SIGKILL), 0);
  runner.join();
  // The agents read end-of-file on their stdin and exit; the nodes stay until a cleanup.
  EXPECT_TRUE(NoAgentsLeft(namespaces)) << "agents outlived their ream";
  EXPECT_NE(testing_support::ReamObjectsOf(ream_pid), "") << "a SIGKILL leaves the nodes for ream cleanup";
  Exec cleanup = Sh(std::string(REAM_BINARY) + " cleanup");
  EXPECT_EQ(cleanup.code, 0) << cleanup.output;
  EXPECT_NE(cleanup.output.find(namespaces[0]), std::string::npos) << cleanup.output;
  EXPECT_EQ(testing_support::ReamObjectsOf(ream_pid), "") << cleanup.output;
}

}  // namespace
}  // namespace ream
