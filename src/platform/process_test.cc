#include "platform/process.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <memory>

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

// What the stdout lines passed on to `on_stdout_line` said: how many there were, whether the
// line "last" was among them, and the pid on a line "pid N".
struct SeenLines {
  std::atomic<int> lines{0};
  std::atomic<bool> last{false};
  std::atomic<int> pid{0};
};
std::shared_ptr<SeenLines> CountLines(SpawnOptions& o) {
  auto seen = std::make_shared<SeenLines>();
  o.on_stdout_line = [seen](const std::string& l) {
    ++seen->lines;
    if (l == "last") seen->last = true;
    if (l.rfind("pid ", 0) == 0) seen->pid = std::atoi(l.c_str() + 4);
  };
  return seen;
}

// A process's last lines can still be in the pipe when its exit is seen: WaitForOutputEnd
// waits until every line was passed on (the runner lost a generator's JSON to this).
TEST(Spawn, EveryLineIsPassedOnAfterTheExit) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sh", "-c", "seq 1 20000; echo last"};
  o.capture_stdout = true;
  auto seen = CountLines(o);
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  auto e = (*child)->Wait(milliseconds(10000));
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE((*child)->WaitForOutputEnd(milliseconds(10000)));
  EXPECT_EQ(seen->lines.load(), 20001);
  EXPECT_TRUE(seen->last.load());
}

// The destructor does not wait for the end of stdout (a child of the process may hold it open)
// but still passes on every line already written.
TEST(Spawn, DestructorPassesOnWhatIsAlreadyInThePipe) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  // The grandchild holds stdout open for 30 s; its pid comes first, so the test can end it.
  o.argv = {"sh", "-c", "sleep 30 & echo \"pid $!\"; seq 1 5000; echo last"};
  o.capture_stdout = true;
  auto seen = CountLines(o);
  {
    auto child = p->Spawn(o);
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    ASSERT_TRUE((*child)->Wait(milliseconds(10000)).ok());
    EXPECT_FALSE((*child)->WaitForOutputEnd(milliseconds(50))) << "the grandchild holds stdout open";
    auto t0 = std::chrono::steady_clock::now();
    child->reset();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  }
  EXPECT_EQ(seen->lines.load(), 5002);
  EXPECT_TRUE(seen->last.load());
  ASSERT_GT(seen->pid.load(), 0);
  ::kill(seen->pid.load(), SIGKILL);
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

// The agent sessions' plumbing (remote/remote_driver.cc): requests on the child's stdin,
// its end closed to say "finish", its stderr in a file, and a write to a child that has gone
// reported, not a SIGPIPE.
TEST(Spawn, StdinPipeFeedsTheChildAndClosingItEndsIt) {
  auto p = MakePosixPlatform();
  std::string err_path = "/tmp/ream-process-test-" + std::to_string(p->ProcessId()) + ".err";
  SpawnOptions o;
  o.argv = {"sh", "-c", "while read l; do echo \"got $l\"; done; echo bye >&2"};
  o.pipe_stdin = true;
  o.capture_stdout = true;
  o.stderr_path = err_path;
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().message();
  ASSERT_TRUE((*child)->WriteStdin("one\ntwo\n", milliseconds(2000)).ok());
  auto line = (*child)->WaitForLine([](const std::string& l) { return l == "got two"; }, milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.status().message();
  (*child)->CloseStdin();
  auto exit = (*child)->Wait(milliseconds(5000));
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->exit_code, 0);
  EXPECT_EQ(*p->ReadFile(err_path), "bye\n");
  (void)p->RemoveFile(err_path);
  // Written to after it exited: Unavailable, and this process is still here.
  Status late = (*child)->WriteStdin("three\n", milliseconds(1000));
  EXPECT_FALSE(late.ok());
}

// A program that writes beside itself ('.') writes into the directory it was started in.
TEST(Spawn, WorkingDirIsWhereTheChildStarts) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"pwd"};
  o.capture_stdout = true;
  o.working_dir = "/proc";
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().message();
  auto line = (*child)->WaitForLine([](const std::string&) { return true; }, milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(*line, "/proc");
  (void)(*child)->Wait(milliseconds(5000));
  // One that cannot be entered fails the spawn, naming it.
  o.working_dir = "/nonexistent-ream-dir";
  auto bad = p->Spawn(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/nonexistent-ream-dir"), std::string::npos) << bad.status().message();
}

// A relative program names a file from ream's directory and starts there, whatever working
// directory was asked: from a directory the child's user could not search its way to, only the
// relative path reaches it.
TEST(Spawn, ARelativeProgramStartsInReamsDirectory) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"./" + std::string("..") + "/bin/pwd"};
  const std::string here = std::filesystem::current_path().string();
  std::filesystem::current_path("/usr/lib");
  o.capture_stdout = true;
  o.working_dir = "/proc";
  auto child = p->Spawn(o);
  std::filesystem::current_path(here);
  ASSERT_TRUE(child.ok()) << child.status().message();
  auto line = (*child)->WaitForLine([](const std::string&) { return true; }, milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(*line, "/usr/lib");
  (void)(*child)->Wait(milliseconds(5000));
}

TEST(Spawn, WritingToAChildThatClosedItsStdinIsAnErrorNotASignal) {
  auto p = MakePosixPlatform();
  SpawnOptions o;
  o.argv = {"sh", "-c", "exec 0<&-; exec sleep 5"};
  o.pipe_stdin = true;
  auto child = p->Spawn(o);
  ASSERT_TRUE(child.ok());
  Status st;
  for (int i = 0; i < 100 && st.ok(); ++i) {
    st = (*child)->WriteStdin(std::string(4096, 'x'), milliseconds(500));
    if (st.ok()) p->SleepFor(milliseconds(20));
  }
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.message();
  // Its sleep has nothing more to show: ended now, not waited for.
  EXPECT_TRUE((*child)->Signal(SIGKILL).ok());
  EXPECT_TRUE((*child)->Wait(milliseconds(2000)).ok());
  SpawnOptions plain;
  plain.argv = {"true"};
  auto no_pipe = p->Spawn(plain);
  ASSERT_TRUE(no_pipe.ok());
  EXPECT_EQ((*no_pipe)->WriteStdin("x", milliseconds(100)).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ream
