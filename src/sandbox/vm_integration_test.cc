// The vm sandbox end to end (label vm; root, libvirt, QEMU under TCG — nested KVM barely runs
// on this project's machines): `ream run` of a kv sweep in a guest booted once, saved and
// restored; what a kill -9 leaves and `ream cleanup` removes; the messages of a missing libvirt
// daemon, a missing image and an unbootable one, each before any load. Under CTest the fixture
// vm_daemons (scripts/vm-test-daemons) starts libvirtd once for all these tests when it does not
// answer (no systemd here); a binary run by hand starts it itself, and stops it again after.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "platform/test_directory.h"

namespace ream {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::unique_ptr<Platform>& P() {
  static std::unique_ptr<Platform> p = MakePosixPlatform();
  return p;
}

std::string Sh(const std::string& cmd) {
  auto r = P()->Run({"sh", "-c", cmd}, 60s);
  return r.ok() ? r->out + r->err : r.status().message();
}

bool LibvirtAnswers() {
  auto r = P()->Run({"virsh", "-c", "qemu:///system", "version"}, 20s);
  return r.ok() && r->exit_code == 0;
}

// What ream's vm sandbox may leave: domains, its bridges, saved states and consoles, records.
std::string Leftovers() {
  std::string out;
  auto doms = Sh("virsh -q -c qemu:///system list --all --name | grep '^ream-vm-' || true");
  if (!doms.empty()) out += "domains: " + doms;
  auto links = Sh("ip -o link | grep -o 'ream[0-9]*b[0-9]*\\|ream[0-9]*t[0-9]*' || true");
  if (!links.empty()) out += "links: " + links;
  auto files = Sh("ls /run/ream 2>/dev/null | grep -E '^ream-vm-|^vm-' || true");
  if (!files.empty()) out += "files in /run/ream: " + files;
  return out;
}

class VmEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (::geteuid() != 0) return;
    if (!LibvirtAnswers()) {
      // Each test is a process of its own (CTest): the previous one's daemons may still be
      // going away. Wait for them, then start both; virtlogd holds the guests' consoles.
      Sh("for i in $(seq 100); do pgrep -x libvirtd >/dev/null || pgrep -x virtlogd >/dev/null || break; sleep 0.1; done");
      Sh("pgrep -x virtlogd >/dev/null || virtlogd -d");
      Sh("libvirtd -d --pid-file /run/ream-test-libvirtd.pid");
      for (int i = 0; i < 100 && !(LibvirtAnswers() && fs::exists("/run/libvirt/virtlogd-sock")); ++i) {
        std::this_thread::sleep_for(100ms);
      }
      started_ = true;
    }
  }
  void TearDown() override {
    if (started_) {
      // Stopped as they were found: not running. Waited for, so the next test starts afresh.
      Sh("kill $(cat /run/ream-test-libvirtd.pid) 2>/dev/null; pkill -x virtlogd; "
         "for i in $(seq 100); do pgrep -x libvirtd >/dev/null || pgrep -x virtlogd >/dev/null || break; sleep 0.1; done; "
         "rm -f /run/ream-test-libvirtd.pid");
    }
  }

 private:
  bool started_ = false;
};

const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new VmEnvironment);

class VmSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (libvirt's system connection, a bridge)";
    ASSERT_TRUE(LibvirtAnswers()) << "libvirtd does not answer at qemu:///system even after starting it: "
                                  << Sh("virsh -c qemu:///system version");
    dir_ = testing_support::FreshTestDirectory("ream-vm-test");
    ASSERT_EQ(Leftovers(), "") << "left by something before this test";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Spec(const std::string& name, const std::string& sandbox_extra,
                   const std::string& sweep = "qps = [100, 300]\n", const std::string& load_extra = "",
                   const std::string& duration = "1s") {
    std::string path = (dir_ / (name + ".toml")).string();
    std::ofstream(path) << "name = \"" << name << "\"\n"
                        << R"(scenarios = ["1-ST"]
[sandbox]
kind = "vm"
)" << sandbox_extra
                        << R"(
[workload]
builtin = "kv"
args = ["--records", "1000"]
[load]
warmup = "500ms"
duration = ")" << duration << R"("
connections = 2
# An emulated CPU (TCG) is slow and its timer coarse: the seed's rule at a tolerance that an
# emulated guest's round trip of about a millisecond can meet.
timely_tolerance = "2ms"
response_timeout = "500ms"
)" << load_extra << "[sweep]\n" << sweep << R"([qos]
validity = "seed"
)";
    return path;
  }
  int64_t Points(const std::string& db) {
    auto r = P()->Run({"sqlite3", db, "select count(*) from points"}, 10s);
    return r.ok() && r->exit_code == 0 ? std::atoll(r->out.c_str()) : -1;
  }
  fs::path dir_;
};

TEST_F(VmSandboxTest, SweepRunsInAGuestBesideAnotherGuestRestoredFromSavedStatesAndLeavesNothing) {
  std::string db = (dir_ / "r.db").string();
  // A CPU quota through libvirt's <cputune>, read back from the domain's cgroup and shown to cap
  // the domain at a level far beyond what half a CPU serves under TCG; and a loaded co-runner in
  // a guest of its own beside the subject's (alone and together).
  const std::string extra = R"([partitions]
cpu_quota = "50%"
[[corunner]]
name = "other"
sandbox = "vm"
builtin = "kv"
args = ["--records", "1000"]
cpus = "subject"
[corunner.load]
qps = 50
[colocation]
sets = [["other"]]
)";
  // Every level measured once, whatever the host did to it: the overloaded one is meant to be
  // invalid, and each is judged here by what the guest's CPU did, not by its validity.
  auto r = P()->Run({REAM_BINARY, "run",
                     Spec("vm-kv", extra, "qps = [100, 300, 4000]\nstop_after_invalid = 0\n", "attempts = 1\n"), "--db",
                     db},
                    600s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->exit_code, 0) << r->out << r->err;
  std::string out = r->out + r->err;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(its cgroup \S+ holds cpu\.cfs_quota_us 50000, cpu\.cfs_period_us )"
                                                R"(100000(\n|;|$))")) ||
              std::regex_search(out, std::regex(R"(its cgroup \S+ holds cpu\.max 50000 100000(\n|;|$))")))
      << out;
  // The restore time is reported next to the cold boot's.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m,
                                std::regex(R"(restored from its saved state in ([0-9.]+) s; its cold boot to the )"
                                           R"(workload's readiness took ([0-9.]+) s)")))
      << out;
  std::printf("vm: restore %s s, cold boot %s s\n", m[1].str().c_str(), m[2].str().c_str());
  RecordProperty("restore_s", m[1].str());
  RecordProperty("cold_boot_s", m[2].str());
  EXPECT_GT(std::stod(m[2].str()), 0);
  EXPECT_GT(std::stod(m[1].str()), 0);

  // Both points stored, answered by the guest, with the guest's CPU time from libvirt.
  auto q = P()->Run({"sqlite3", "-json", db,
                     "select target_load, completed, server_cpu_s, duration_s, cpu_util, net_rx_bps, monitor_json from points p "
                     // A level the host spoiled is measured again ([load] attempts): its last
                     // attempt is the one that stands (valid, or the last of the invalid).
                     "where attempt = (select max(attempt) from points q where q.run_id = p.run_id "
                     "and q.target_load = p.target_load) "
                     "and run_id = (select id from runs where tenants = '') order by target_load"},
                    10s);
  ASSERT_TRUE(q.ok() && q->exit_code == 0) << (q.ok() ? q->err : q.status().ToString());
  auto rows = nlohmann::json::parse(q->out);
  ASSERT_EQ(rows.size(), 3u) << q->out;
  for (const auto& row : rows) {
    EXPECT_GT(row["completed"].get<int64_t>(), 0) << row.dump();
    ASSERT_TRUE(row["server_cpu_s"].is_number()) << row.dump();
    EXPECT_GT(row["server_cpu_s"].get<double>(), 0) << row.dump();
    auto mon = nlohmann::json::parse(row["monitor_json"].get<std::string>());
    EXPECT_NE(mon["sources"]["cpu"].get<std::string>().find("libvirt"), std::string::npos) << mon["sources"].dump();
    EXPECT_NE(mon["sources"]["memory"].get<std::string>().find("memory.usage_in_bytes"), std::string::npos)
        << mon["sources"].dump();
    EXPECT_GT(row["net_rx_bps"].get<double>(), 0) << "the guest's tap counted no traffic: " << row.dump();
  }
  // Three times the load takes more of the guest's CPU.
  EXPECT_GT(rows[1]["server_cpu_s"].get<double>(), rows[0]["server_cpu_s"].get<double>()) << rows.dump();
  // Overloaded, the guest's whole domain (vCPU and emulator threads, libvirt's cpu.time) takes
  // its quota of the host, within 10 %.
  ASSERT_TRUE(rows[2]["duration_s"].is_number()) << rows[2].dump();
  const double cpus = rows[2]["server_cpu_s"].get<double>() / rows[2]["duration_s"].get<double>();
  std::printf("vm: a guest at cpu_quota 50%% took %.3f CPUs of the host offered 4000 QPS\n", cpus);
  RecordProperty("guest_cpus_at_half_quota", std::to_string(cpus));
  EXPECT_NEAR(cpus, 0.5, 0.05) << rows[2].dump();
  // The co-runner's guest answered its own load, alone, and its figures say it ran in a guest.
  auto t = P()->Run({"sqlite3", db, "select tenants_json from runs where tenants = 'other'"}, 10s);
  ASSERT_TRUE(t.ok() && t->exit_code == 0) << (t.ok() ? t->err : t.status().ToString());
  auto other = nlohmann::json::parse(t->out)["alone"]["other"];
  ASSERT_TRUE(other.is_object()) << t->out;
  EXPECT_GT(other["load"]["achieved_qps"].get<double>(), 0) << other.dump();
  EXPECT_TRUE(other["load"]["valid"].is_boolean()) << other.dump();
  EXPECT_GT(other["cpu_s"].get<double>(), 0) << other.dump();
  // Its memory from the domain's cgroup (libvirt's: at least what the guest touched of its RAM);
  // its disk said to be absent, not read as zero.
  ASSERT_TRUE(other["mem_bytes"].is_number()) << other.dump();
  EXPECT_GT(other["mem_bytes"].get<double>(), 16 << 20) << other.dump();
  EXPECT_NE(other["unavailable"]["disk_read_bps"].get<std::string>().find("has no disk"), std::string::npos)
      << other.dump();
  auto together = P()->Run({"sqlite3", db,
                            "select count(*) from points p join runs r on r.id = p.run_id where r.tenants = 'other' "
                            "and p.completed > 0"},
                           10s);
  ASSERT_TRUE(together.ok());
  EXPECT_GE(std::atoi(together->out.c_str()), 2) << together->out;

  // The environment says how the guest ran.
  auto env = P()->Run({"sqlite3", db, "select doctor_json from environment"}, 10s);
  ASSERT_TRUE(env.ok());
  EXPECT_NE(env->out.find("TCG"), std::string::npos) << env->out;

  EXPECT_EQ(Leftovers(), "");
  EXPECT_EQ(Sh("virsh -q -c qemu:///system list --all --name | grep ream || true"), "");
}

// A guest killed in the middle of a point fails that point, naming the guest, and the run goes
// on with the guest restored; then ream itself is killed outright and `ream cleanup` removes what
// it left.
TEST_F(VmSandboxTest, AGuestKilledMidPointFailsItNamingItAndKillNineLeavesWhatReamCleanupRemoves) {
  std::string db = (dir_ / "k.db").string();
  std::string events = (dir_ / "events.jsonl").string();
  SpawnOptions so;
  // Levels of 4 s, so the guest is destroyed inside the first one.
  so.argv = {REAM_BINARY, "run", Spec("vm-kill", "", "qps = [100, 200, 300]\nstop_after_invalid = 0\n",
                                      "attempts = 1\n", "4s"),
             "--db", db, "--events", events};
  so.kill_with_parent = true;
  auto child = P()->Spawn(so);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  std::optional<ProcessExit> ended;
  auto wait_for = [&](const std::string& event, int occurrences) {
    for (int i = 0; i < 3000 && !ended; ++i) {
      std::ifstream f(events);
      std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      int n = 0;
      for (size_t at = all.find(event); at != std::string::npos; at = all.find(event, at + 1)) ++n;
      if (n >= occurrences) return true;
      ended = (*child)->Poll();
      std::this_thread::sleep_for(100ms);
    }
    return false;
  };
  // The guest runs (restored) and its first level is under way: the guest is destroyed by hand.
  ASSERT_TRUE(wait_for("\"workload_started\"", 1))
      << "the guest never started" << (ended ? "; ream run " + ended->Describe() + " first (its messages are above)" : "");
  std::this_thread::sleep_for(2s);
  const std::string guest = Trim(Sh("virsh -q -c qemu:///system list --name | grep ream-vm- | head -1"));
  ASSERT_FALSE(guest.empty()) << Leftovers();
  Sh("virsh -q -c qemu:///system destroy " + guest);
  // ream restores it for the next level, then is killed outright.
  ASSERT_TRUE(wait_for("\"workload_restarted\"", 1)) << "the destroyed guest was not restored"
                                                       << (ended ? "; ream run " + ended->Describe() : "");
  ASSERT_TRUE(wait_for("\"workload_started\"", 2)) << (ended ? "ream run " + ended->Describe() : "");
  ASSERT_TRUE((*child)->Signal(SIGKILL).ok());
  (void)(*child)->Wait(10s);
  // The point the guest died in failed, naming it.
  auto failed = P()->Run({"sqlite3", db, "select failure from points where target_load = 100"}, 10s);
  ASSERT_TRUE(failed.ok() && failed->exit_code == 0) << (failed.ok() ? failed->err : failed.status().ToString());
  EXPECT_NE(failed->out.find(guest), std::string::npos) << failed->out;
  EXPECT_NE(failed->out.find("during this load level"), std::string::npos) << failed->out;
  // What the killed run left: its domain is still running (libvirt's child, not ream's).
  std::string left = Leftovers();
  EXPECT_NE(left.find("domains: ream-vm-"), std::string::npos) << left;
  auto c = P()->Run({REAM_BINARY, "cleanup"}, 120s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->exit_code, 0) << c->out << c->err;
  EXPECT_NE((c->out + c->err).find("domain ream-vm-"), std::string::npos) << c->out << c->err;
  EXPECT_EQ(Leftovers(), "");
  EXPECT_EQ(Sh("virsh -q -c qemu:///system list --all --name | grep ream || true"), "");
  // ream keeps a guest's state in a saved-state file, not a libvirt snapshot: Leftovers() above
  // covers those files; with no domain left there is no snapshot list to read.
}

TEST_F(VmSandboxTest, NoDaemonNoImageAndAnUnbootableImageFailBeforeAnyLoad) {
  struct Case {
    std::string what, sandbox, expect;
  };
  fs::create_directories(dir_ / "bad");
  std::ofstream(dir_ / "bad" / "vmlinuz") << "this is not a kernel\n";
  std::ofstream(dir_ / "bad" / "initrd.gz") << "nor an initramfs\n";
  const Case cases[] = {
      {"no daemon", "uri = \"qemu+unix:///system?socket=/nonexistent/libvirt-sock\"\n", "cannot reach libvirt"},
      {"no image", "image = \"" + (dir_ / "missing").string() + "\"\n", "has no vmlinuz"},
      {"unbootable", "image = \"" + (dir_ / "bad").string() + "\"\nboot_timeout = \"30s\"\n", "the guest ream-vm-"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string db = (dir_ / ("e" + std::to_string(n) + ".db")).string();
    auto r = P()->Run({REAM_BINARY, "run", Spec("vm-bad-" + std::to_string(n++), c.sandbox), "--db", db}, 300s);
    ASSERT_TRUE(r.ok());
    EXPECT_NE(r->exit_code, 0) << r->out << r->err;
    EXPECT_NE((r->out + r->err).find(c.expect), std::string::npos) << r->out << r->err;
    std::printf("%s: %s\n", c.what.c_str(), r->err.substr(0, r->err.find('\n')).c_str());
    // Before any load: no point stored (or no database at all).
    if (fs::exists(db)) {
      EXPECT_LE(Points(db), 0) << c.what;
    }
    EXPECT_EQ(Leftovers(), "");
  }
}

}  // namespace
}  // namespace ream
