// State files: the owner line, liveness by pid + start time, and the cleanup of dead runs'
// records (on a fake tree, so no kernel object is touched).
#include "sandbox/state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace ream {
namespace {

TEST(StateFile, RecordsBeforeCreationAndRemovesItself) {
  auto p = MakePosixPlatform();
  std::string dir = "/tmp/ream-state-test-" + std::to_string(::getpid());
  {
    auto f = StateFile::Create(*p, dir, "run-1");
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    ASSERT_TRUE((*f)->Record("netns", "ream-1-1").ok());
    auto text = p->ReadFile(dir + "/run-1.state");
    ASSERT_TRUE(text.ok());
    auto owner = OwnerLine(*p, ::getpid());
    ASSERT_TRUE(owner.ok());
    EXPECT_EQ(*text, *owner + "\nnetns ream-1-1\n");
    EXPECT_TRUE(OwnerAlive(*p, *owner));
    ASSERT_TRUE((*f)->Remove().ok());
    EXPECT_FALSE(p->Exists(dir + "/run-1.state"));
  }
  std::filesystem::remove_all(dir);
}

TEST(StateFile, OwnerWithAnotherStartTimeIsDead) {
  auto p = MakePosixPlatform();
  auto owner = OwnerLine(*p, ::getpid());
  ASSERT_TRUE(owner.ok());
  EXPECT_FALSE(OwnerAlive(*p, "owner " + std::to_string(::getpid()) + " 1"));
  EXPECT_FALSE(OwnerAlive(*p, "owner 999999999 1"));
  EXPECT_FALSE(OwnerAlive(*p, "garbage"));
}

TEST(Cleanup, RemovesDeadRunsAndKeepsLiveOnes) {
  std::string root = "/tmp/ream-cleanup-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(root + "/run/ream");
  std::filesystem::create_directories(root + "/sys/fs/cgroup/cpu/ream-99-1");
  std::filesystem::create_directories(root + "/sys/fs/cgroup/cpu/ream-98-1");
  auto host = MakePosixPlatform();
  std::string live_owner = *OwnerLine(*host, ::getpid());
  // The fake maps /proc too: give it this process's stat so the live owner is alive.
  std::filesystem::create_directories(root + "/proc/" + std::to_string(::getpid()));
  ASSERT_TRUE(host->WriteFile(root + "/proc/" + std::to_string(::getpid()) + "/stat",
                              *host->ReadFile("/proc/self/stat")).ok());
  ASSERT_TRUE(host->WriteFile(root + "/run/ream/99-1.state",
                              "owner 99 12345\ncgroup /sys/fs/cgroup/cpu/ream-99-1\n").ok());
  ASSERT_TRUE(host->WriteFile(root + "/run/ream/98-1.state",
                              live_owner + "\ncgroup /sys/fs/cgroup/cpu/ream-98-1\n").ok());
  RootedPlatform p(root);
  CleanupReport r = CleanupDeadRuns(p, "/run/ream");
  EXPECT_EQ(r.dead_runs, 1);
  EXPECT_EQ(r.live_runs, 1);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.removed, std::vector<std::string>{"cgroup /sys/fs/cgroup/cpu/ream-99-1"});
  EXPECT_FALSE(std::filesystem::exists(root + "/sys/fs/cgroup/cpu/ream-99-1"));
  EXPECT_FALSE(std::filesystem::exists(root + "/run/ream/99-1.state"));
  EXPECT_TRUE(std::filesystem::exists(root + "/sys/fs/cgroup/cpu/ream-98-1"));
  EXPECT_TRUE(std::filesystem::exists(root + "/run/ream/98-1.state"));
  std::filesystem::remove_all(root);
}

// The ssh sessions' stderr files: a directory recorded before it is made, gone with its record
// when its owner ends normally, and removed by a cleanup when the owner died (a SIGKILL).
TEST(ScratchDir, IsRecordedRemovedWithItsOwnerAndByACleanupAfterADeath) {
  auto p = MakePosixPlatform();
  const std::string root = "/tmp/ream-scratch-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(root);
  const std::string state = root + "/state";
  std::string path, record;
  {
    auto d = ScratchDir::Create(*p, state, root, "ream-agents");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    path = (*d)->path();
    EXPECT_EQ(path.rfind(root + "/ream-agents-" + std::to_string(::getpid()) + "-", 0), 0u) << path;
    EXPECT_TRUE(std::filesystem::is_directory(path));
    auto files = p->ListDir(state);
    ASSERT_TRUE(files.ok());
    ASSERT_EQ(files->size(), 1u);
    record = state + "/" + files->front().name;
    EXPECT_EQ(files->front().name.rfind(std::to_string(::getpid()) + "-scratch", 0), 0u) << files->front().name;
    EXPECT_NE(p->ReadFile(record).value_or("").find("\nscratchdir " + path + "\n"), std::string::npos);
    ASSERT_TRUE(p->WriteFile(path + "/agent0.err", "ssh: connect refused\n").ok());
    // A second one in the same process is another directory.
    auto other = ScratchDir::Create(*p, state, root, "ream-agents");
    ASSERT_TRUE(other.ok());
    EXPECT_NE((*other)->path(), path);
    // Its owner (this process) runs: a cleanup leaves both alone.
    CleanupReport live = CleanupDeadRuns(*p, state);
    EXPECT_EQ(live.live_runs, 2);
    EXPECT_TRUE(std::filesystem::exists(path + "/agent0.err"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(record));
  // An owner that died: its record names the directory, which a cleanup removes with its files.
  std::filesystem::create_directories(root + "/ream-workload-99-1");
  ASSERT_TRUE(p->WriteFile(root + "/ream-workload-99-1/workload-agent.err", "x").ok());
  ASSERT_TRUE(p->WriteFile(state + "/99-scratch1.state", "owner 99 12345\nscratchdir " + root + "/ream-workload-99-1\n").ok());
  CleanupReport dead = CleanupDeadRuns(*p, state);
  EXPECT_EQ(dead.dead_runs, 1);
  EXPECT_TRUE(dead.errors.empty()) << dead.errors.front();
  EXPECT_FALSE(std::filesystem::exists(root + "/ream-workload-99-1"));
  EXPECT_FALSE(std::filesystem::exists(state + "/99-scratch1.state"));
  // A record naming a directory not of ream's is refused, not removed.
  EXPECT_EQ(RemoveStateObject(*p, {"scratchdir", "/tmp"}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(std::filesystem::exists("/tmp"));
  std::filesystem::remove_all(root);
}

// A dead run's workload TMPDIR: removed whole by a cleanup, the links in it not followed.
TEST(Cleanup, RemovesADeadRunsTmpdirWithoutFollowingItsLinks) {
  namespace fs = std::filesystem;
  auto p = MakePosixPlatform();
  const fs::path root = fs::temp_directory_path() / ("ream-tmpdir-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path tmp = root / "ream-99-1.tmp", outside = root / "outside";
  fs::create_directories(tmp / "ream-xapian-99-0");
  fs::create_directories(outside);
  ASSERT_TRUE(p->WriteFile((tmp / "ream-xapian-99-0" / "postlist.glass").string(), "x").ok());
  ASSERT_TRUE(p->WriteFile((outside / "keep").string(), "keep").ok());
  fs::create_symlink(outside, tmp / "link");
  const std::string state = (root / "state").string();
  fs::create_directories(state);
  ASSERT_TRUE(p->WriteFile(state + "/99-1.state", "owner 99 12345\ntmpdir " + tmp.string() + "\n").ok());
  CleanupReport r = CleanupDeadRuns(*p, state);
  EXPECT_EQ(r.dead_runs, 1);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmp)));
  EXPECT_TRUE(fs::exists(outside / "keep"));
  EXPECT_EQ(RemoveStateObject(*p, {"tmpdir", "/tmp"}).code(), StatusCode::kInvalidArgument);
  fs::remove_all(root);
}

TEST(Cleanup, RefusesObjectsNotNamedReam) {
  auto p = MakePosixPlatform();
  EXPECT_EQ(RemoveStateObject(*p, {"cgroup", "/sys/fs/cgroup/cpu/system.slice"}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RemoveStateObject(*p, {"veth", "eth0"}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RemoveStateObject(*p, {"bogus", "ream-1"}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ream
