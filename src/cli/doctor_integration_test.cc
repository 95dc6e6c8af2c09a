// `ream doctor` on the real machine must agree with what the kernel answers when the same
// thing is tried independently here, and must leave nothing behind.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <map>

#include "platform/platform.h"

namespace ream {
namespace {

std::unique_ptr<Platform> host = MakePosixPlatform();

std::string Sh(const std::string& script, int* exit_code = nullptr) {
  auto r = host->Run({"sh", "-c", script}, std::chrono::seconds(30));
  EXPECT_TRUE(r.ok());
  if (exit_code) *exit_code = r.ok() ? r->exit_code : -1;
  return r.ok() ? r->out : "";
}

// The doctor's probe objects whose owner is gone. Every name carries the probing process's
// pid; another `ream doctor` running at the same moment (ctest runs the CLI tests in
// parallel) owns its objects while it probes, and they are not left behind.
std::string LeftoverObjects() {
  return Sh(
      "for n in $( (ls -d /sys/fs/cgroup/*/ream-doctor-* /sys/fs/cgroup/ream-doctor-*; "
      "ip netns list | grep -o 'ream-doctor-[0-9]*'; ip -o link show | grep -o 'rmd[0-9]*[ab]') 2>/dev/null ); do "
      "pid=$(echo \"$n\" | grep -o '[0-9]*' | tail -1); [ -d /proc/$pid ] || echo \"$n\"; done; true");
}

class DoctorOnThisMachine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create kernel objects";
    auto r = host->Run({REAM_BINARY, "doctor", "--json"}, std::chrono::seconds(120));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->exit_code, 0) << r->err;
    doc_ = nlohmann::json::parse(r->out);
    for (const auto& c : doc_["capabilities"]) status_[c["name"]] = c["status"];
  }
  // Tries `tc qdisc add ... <qdisc>` on a fresh veth pair, independently of ream.
  std::string TryQdisc(const std::string& args) {
    int code = -1;
    Sh("ip link add rmdtsta type veth peer name rmdtstb && tc qdisc add dev rmdtsta root handle 1: " +
           args + " >/dev/null 2>&1; rc=$?; ip link delete rmdtsta; exit $rc",
       &code);
    return code == 0 ? "supported" : "unsupported";
  }
  nlohmann::json doc_;
  std::map<std::string, std::string> status_;
};

TEST_F(DoctorOnThisMachine, QdiscAnswersMatchTheKernel) {
  EXPECT_EQ(status_["tc.htb"], TryQdisc("htb default 1"));
  EXPECT_EQ(status_["tc.tbf"], TryQdisc("tbf rate 100mbit burst 32kb latency 50ms"));
  EXPECT_EQ(status_["tc.netem"], TryQdisc("netem delay 1ms"));
}

TEST_F(DoctorOnThisMachine, ResctrlAnswerMatchesTheKernel) {
  int has = -1;
  Sh("grep -qw resctrl /proc/filesystems", &has);
  if (has != 0) {
    EXPECT_EQ(status_["resctrl.cat_l3"], "unsupported");
    EXPECT_EQ(status_["resctrl.mba"], "unsupported");
  } else {
    EXPECT_NE(status_["resctrl.cat_l3"], "unknown");
  }
}

TEST_F(DoctorOnThisMachine, OverheadRowMatchesTheLoader) {
  // ld.so itself says whether the library next to the binary can be preloaded.
  std::string bin = REAM_BINARY;
  std::string lib = bin.substr(0, bin.rfind('/') + 1) + "libream-overhead.so";
  int code = -1;
  std::string err = Sh("[ -f '" + lib + "' ] && LD_PRELOAD='" + lib + "' /bin/true 2>&1", &code);
  bool loads = code == 0 && err.find("cannot be preloaded") == std::string::npos;
  EXPECT_EQ(status_["preload.net_overhead"], loads ? "supported" : "unsupported") << err;
  // Its probe's scratch directory is gone (another doctor running now owns its own).
  EXPECT_EQ(Sh("for d in /tmp/ream-doctor-overhead-*; do [ -e \"$d\" ] || continue; "
               "[ -d /proc/${d##*-} ] || echo \"$d\"; done; true"),
            "");
}

TEST_F(DoctorOnThisMachine, SmtAnswerMatchesSysfs) {
  // Any thread_siblings_list naming more than one CPU means SMT.
  std::string multi =
      Sh("cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list | grep -E '[,-]' | head -1");
  EXPECT_EQ(status_["cpu.smt"], multi.empty() ? "unsupported" : "supported");
  EXPECT_EQ(doc_["topology"]["smt"], !multi.empty());
}

TEST_F(DoctorOnThisMachine, CgroupAndNamespaceProbesSucceedAsRoot) {
  EXPECT_EQ(status_["cgroup.create"], "supported");
  EXPECT_EQ(status_["net.namespace"], "supported");
  EXPECT_EQ(status_["net.veth"], "supported");
}

TEST_F(DoctorOnThisMachine, LeavesNothingBehind) { EXPECT_EQ(LeftoverObjects(), ""); }

}  // namespace
}  // namespace ream
