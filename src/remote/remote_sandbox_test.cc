// A workload on "another host" through its agent, with a stand-in for ssh that runs the remote
// command here (root, real cgroups; nodes_integration_test has the real sshd): the sandbox the
// agent makes with the partition, the workload's output and end forwarded, the monitor window
// sampled there, everything removed at Stop and when the session ends, ssh's refusal named.
#include "remote/remote_sandbox.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "remote/workload_agent.h"
#include "monitor/monitor.h"
#include "platform/integration_test_support.h"
#include "platform/platform.h"
#include "platform/ssh_stand_in.h"
#include "platform/test_directory.h"
#include "topology/topology.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

class RemoteSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (the agent makes cgroups)";
    dir_ = testing_support::FreshTestDirectory("ream-remote-sandbox").string();
    // The workloads run as the unprivileged account: the copy of ream they run must be theirs
    // to read and run, as it would be on a host whose ream is installed.
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    // "ssh [options] HOST COMMAND": COMMAND runs here; host "refuse" answers as a host that
    // wants a password.
    testing_support::WriteSshStandIns(
        dir_, "  refuse:*) echo 'root@refuse: Permission denied (publickey).' >&2; exit 255;;\n");
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  RemoteSandboxOptions Options(const std::string& host) {
    RemoteSandboxOptions o;
    o.host = host;
    o.address = "127.0.0.1";
    o.workload_user = WorkloadUser(*p_, "");
    o.ssh.ream_binary = REAM_BINARY;
    o.ssh.version_line = "a ream this host does not have";  // so the binary is copied
    o.ssh.ssh_program = dir_ + "/ssh";
    o.ssh.scp_program = dir_ + "/scp";
    o.ssh.scratch_dir = dir_;
    o.ssh.state_dir = dir_ + "/state";
    o.ssh.note = [this](const std::string& n) { notes_.push_back(n); };
    return o;
  }
  SandboxOptions Sandboxed() {
    SandboxOptions so;
    so.partition.cpus = "0";
    so.partition.memory_bytes = 256LL << 20;
    so.reserved_cpus = std::vector<int>{};
    so.user = WorkloadUser(*p_, "");
    so.capture_stdout = true;
    return so;
  }
  // Processes run from this test's cache: agents, and the builtin workloads they started.
  int AgentsRunning() { return static_cast<int>(testing_support::ProcessesWith(dir_ + "/ream/ream-").size()); }

  std::unique_ptr<Platform> p_ = MakePosixPlatform();
  std::string dir_;
  std::vector<std::string> notes_;
};

TEST_F(RemoteSandboxTest, TheAgentMakesTheSandboxRunsTheWorkloadAndSamplesItThere) {
  auto kind = MakeRemoteSandboxKind(*p_, Options("wl"));
  auto host = kind->RemoteHost();
  ASSERT_TRUE(host.ok()) << host.status().message();
  ASSERT_TRUE(host->has_value());
  auto here = ReadTopology(*p_);
  ASSERT_TRUE(here.ok());
  EXPECT_EQ((*host)->name, "ssh:wl");
  EXPECT_EQ((*host)->topology.ToJson(), here->ToJson());
  EXPECT_FALSE((*host)->kernel.empty());
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_NE(notes_[0].find("workload host ssh:wl: has no ream on its PATH; copied this ream"), std::string::npos)
      << notes_[0];
  bool saw_host_line = false;
  for (const Capability& c : kind->Probe()) saw_host_line = saw_host_line || (c.name == "workload.host" && c.status == Support::kSupported);
  EXPECT_TRUE(saw_host_line);
  bool memory_enforceable = false;
  for (const KnobSupport& k : kind->Support()) memory_enforceable = memory_enforceable || (k.flag == "--memory" && k.enforceable);
  EXPECT_TRUE(memory_enforceable);
  auto port = kind->FreePort();
  ASSERT_TRUE(port.ok()) << port.status().message();
  EXPECT_GT(*port, 0);

  auto sb = kind->Start(Sandboxed(), {REAM_BINARY, "serve", "kv", "--port", "0", "--threads", "1", "--records", "1000"});
  ASSERT_TRUE(sb.ok()) << sb.status().message();
  Sandbox& s = **sb;
  EXPECT_TRUE(s.monitored_remotely());
  EXPECT_EQ(s.cpus(), std::vector<int>{0});
  EXPECT_EQ(s.address(), "127.0.0.1");
  auto ready = s.WaitForLine(StartsWith("ready "), std::chrono::milliseconds(10000));
  ASSERT_TRUE(ready.ok()) << ready.status().message();
  const int kv_port = std::atoi(ready->substr(ready->find(':') + 1).c_str());
  // The agent's sandbox is a cgroup of this (one) machine with the partition's limit.
  const std::string cgroup = s.name().substr(s.name().find(':') + 1);
  ASSERT_EQ(cgroup.rfind("ream-", 0), 0u) << s.name();
  std::ifstream limit("/sys/fs/cgroup/memory/" + cgroup + "/memory.limit_in_bytes");
  int64_t bytes = 0;
  limit >> bytes;
  EXPECT_EQ(bytes, 256LL << 20);

  ASSERT_TRUE(s.StartMonitorWindow(std::chrono::milliseconds(100)).ok());
  auto load = p_->Run({REAM_BINARY, "load", "--target", "127.0.0.1:" + std::to_string(kv_port), "--qps", "2000",
                       "--duration", "1s", "--warmup", "200ms", "--connections", "2", "--keys", "1000"},
                      std::chrono::milliseconds(20000));
  ASSERT_TRUE(load.ok()) << load.status().message();
  EXPECT_EQ(load->exit_code, 0) << load->err;
  auto doc = s.StopMonitorWindow();
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  auto report = MonitorReport::FromJson(*doc);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_TRUE(report->Mean("cpu_used").has_value()) << doc->dump();
  EXPECT_GT(*report->Mean("cpu_used"), 0.0);  // 2 000 requests a second cost the server something
  EXPECT_GE(report->timeline.size(), 5u);
  EXPECT_EQ(report->cpus, std::vector<int>{0});
  EXPECT_GT(report->duration_s, 1.0);

  EXPECT_TRUE(s.Alive());
  ASSERT_TRUE(s.Stop().ok());
  EXPECT_FALSE(s.Alive());
  EXPECT_FALSE(fs::exists("/sys/fs/cgroup/memory/" + cgroup));
  EXPECT_FALSE(fs::exists("/sys/fs/cgroup/cpu/" + cgroup));
  sb->reset();
  kind.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

TEST_F(RemoteSandboxTest, AWorkloadThatEndsIsSaidToHaveEndedWithItsOutput) {
  auto kind = MakeRemoteSandboxKind(*p_, Options("wl"));
  auto sb = kind->Start(Sandboxed(), {"/bin/sh", "-c", "echo first words; sleep 0.2; exit 3"});
  ASSERT_TRUE(sb.ok()) << sb.status().message();
  Sandbox& s = **sb;
  auto line = s.WaitForLine(StartsWith("first"), std::chrono::milliseconds(10000));
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(*line, "first words");
  auto exit = s.Wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_EQ(exit->ShellCode(), 3);
  EXPECT_FALSE(s.Alive());
  EXPECT_EQ(s.ExitDescription(), "exited with status 3");
  EXPECT_EQ(s.process().Lines(), std::vector<std::string>{"first words"});
  // A line it never printed: said at once, not after the timeout.
  auto never = s.WaitForLine(StartsWith("ready"), std::chrono::milliseconds(60000));
  EXPECT_EQ(never.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(s.Stop().ok());
  sb->reset();
  kind.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

// What a dropped ssh session does to the agent: its stdin closes with no stop request before
// it. The agent must stop the workload and remove its sandbox on its own.
TEST_F(RemoteSandboxTest, ClosingTheSessionStopsTheWorkloadAndRemovesItsSandbox) {
  SpawnOptions so;
  so.argv = {REAM_BINARY, "agent"};
  so.pipe_stdin = true;
  so.capture_stdout = true;
  auto agent = p_->Spawn(so);
  ASSERT_TRUE(agent.ok()) << agent.status().message();
  nlohmann::json start = {{"type", "sandbox_start"},
                          {"id", 1},
                          {"options", SandboxOptionsToJson(Sandboxed())},
                          {"argv", {"/bin/sh", "-c", "echo up; exec sleep 600"}}};
  ASSERT_TRUE((*agent)->WriteStdin(start.dump() + "\n", std::chrono::milliseconds(5000)).ok());
  auto reply = (*agent)->WaitForLine([](const std::string& l) { return l.find("\"type\":\"sandbox\"") != std::string::npos ||
                                                                       l.find("\"type\":\"error\"") != std::string::npos; },
                                     std::chrono::milliseconds(20000));
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  auto m = nlohmann::json::parse(*reply);
  ASSERT_EQ(m["type"], "sandbox") << *reply;
  const std::string cgroup = m["name"].get<std::string>();
  const int pid = m["pid"].get<int>();
  auto up = (*agent)->WaitForLine([](const std::string& l) { return l.find("\"line\":\"up\"") != std::string::npos; },
                                  std::chrono::milliseconds(10000));
  ASSERT_TRUE(up.ok()) << up.status().message();
  ASSERT_TRUE(fs::exists("/sys/fs/cgroup/memory/" + cgroup));
  (*agent)->CloseStdin();
  auto exit = (*agent)->Wait(std::chrono::milliseconds(15000));
  ASSERT_TRUE(exit.ok()) << "the agent outlived its session";
  EXPECT_EQ(exit->ShellCode(), 0);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid))) << "the workload outlived its session";
  EXPECT_FALSE(fs::exists("/sys/fs/cgroup/memory/" + cgroup)) << "its cgroup outlived the session";
  EXPECT_FALSE(fs::exists("/sys/fs/cgroup/cpu/" + cgroup));
}

TEST_F(RemoteSandboxTest, AHostThatRefusesTheLoginIsNamedWithWhatToDo) {
  auto kind = MakeRemoteSandboxKind(*p_, Options("refuse"));
  auto host = kind->RemoteHost();
  ASSERT_FALSE(host.ok());
  const std::string why = host.status().message();
  EXPECT_NE(why.find("workload host ssh:refuse"), std::string::npos) << why;
  EXPECT_NE(why.find("never types a password"), std::string::npos) << why;
  auto sb = kind->Start(Sandboxed(), {"/bin/true"});
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sb.status().message(), why);  // the first failure, again, without trying twice
}

TEST_F(RemoteSandboxTest, AProgramTheHostCannotStartIsRefusedByItsAgent) {
  auto kind = MakeRemoteSandboxKind(*p_, Options("wl"));
  // Before any run, as the spec's validation asks: looked up on that host, by its agent.
  EXPECT_TRUE(kind->FindProgram(*p_, "sh").ok());
  Status missing = kind->FindProgram(*p_, "/nonexistent/server");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("program '/nonexistent/server' is not found on workload host ssh:wl"),
            std::string::npos)
      << missing.message();
  // And if it is started all the same:
  auto sb = kind->Start(Sandboxed(), {"/nonexistent/server", "--port", "1"});
  ASSERT_FALSE(sb.ok());
  const std::string why = sb.status().message();
  EXPECT_NE(why.find("workload host ssh:wl"), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/server"), std::string::npos) << why;
  kind.reset();
  EXPECT_EQ(AgentsRunning(), 0);
}

}  // namespace
}  // namespace ream
