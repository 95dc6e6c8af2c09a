#include "platform/process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "platform/platform.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

TEST(Spawn, ReportsExitCodeAndCapturesStdoutLines) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sh", "-c", "echo starting; echo 'ream-serve ready port=4242'; exit 7"};
  o.capture_stdout = true;
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  auto line = (*child)->WaitForLine(
      [](const std::string& l) { return l.rfind("ream-serve ready", 0) == 0; }, milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_EQ(*line, "ream-serve ready port=4242");
  auto e = (*child)->Wait(milliseconds(5000));
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->signaled);
  EXPECT_EQ(e->exit_code, 7);
  EXPECT_EQ(e->Describe(), "exited with status 7");
  EXPECT_EQ((*child)->Lines().front(), "starting");
}

TEST(Spawn, MissingLineIsUnavailableOnceStdoutCloses) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sh", "-c", "echo nothing-here"};
  o.capture_stdout = true;
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok());
  auto line = (*child)->WaitForLine([](const std::string& l) { return l == "ready"; },
                                    milliseconds(5000));
  EXPECT_EQ(line.status().code(), StatusCode::kUnavailable) << line.status().ToString();
}

TEST(Spawn, SignalAndWaitTimeout) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sleep", "30"};
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ((*child)->Wait(milliseconds(50)).status().code(), StatusCode::kTimeout);
  EXPECT_FALSE((*child)->Poll().has_value());
  ASSERT_TRUE((*child)->Signal(SIGTERM).ok());
  auto e = (*child)->Wait(milliseconds(5000));
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->signaled);
  EXPECT_EQ(e->signal, SIGTERM);
  EXPECT_EQ(e->Describe(), "killed by signal 15 (SIGTERM)");
  EXPECT_EQ(e->ShellCode(), 143);
  EXPECT_EQ((*child)->Signal(SIGTERM).code(), StatusCode::kNotFound);
}

TEST(Spawn, MissingProgramAndBadJoinFileFailWithTheCause) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"ream-no-such-program"};
  EXPECT_EQ(p->Spawn(o).status().code(), StatusCode::kNotFound);
  o.argv = {"true"};
  o.join_files = {"/nonexistent-dir/cgroup.procs"};
  auto r = p->Spawn(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent-dir/cgroup.procs"), std::string::npos);
}

TEST(Spawn, ExtraEnvironmentReachesTheChild) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sh", "-c", "echo \"v=$REAM_TEST_VAR\""};
  o.env = {{"REAM_TEST_VAR", "42"}};
  o.capture_stdout = true;
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok());
  auto line = (*child)->WaitForLine([](const std::string& l) { return l.rfind("v=", 0) == 0; },
                                    milliseconds(5000));
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(*line, "v=42");
}

TEST(Spawn, DestructorKillsARunningChild) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sleep", "30"};
  int pid = 0;
  {
    auto child = p->Spawn(o);
    ASSERT_TRUE(child.ok());
    pid = (*child)->pid();
    EXPECT_TRUE(p->Kill(pid, 0).ok());
  }
  EXPECT_EQ(p->Kill(pid, 0).code(), StatusCode::kNotFound);
}

TEST(Platform, DeviceOfNamesTheFilesystemDevice) {
  auto p = MakePosixPlatform();
  auto d = p->DeviceOf("/proc");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->first, 0);  // procfs is an anonymous device (major 0)
  EXPECT_FALSE(p->DeviceOf("/nonexistent-ream").ok());
}

}  // namespace
}  // namespace ream
