// FindProgramAsUser on a real directory tree: a directory only its owner may enter comes first
// in PATH and holds the program; another, open to all, holds a program of the same name. The
// workload's user must get the second, root the first.
#include "platform/program_search.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "platform/platform.h"

namespace ream {
namespace {

namespace fs = std::filesystem;

constexpr char kProgram[] = "ream-program-search-test";

// The unprivileged account workloads run as, or `nobody` where it does not exist.
std::optional<RunAs> WorkloadUser() {
  auto p = MakePosixPlatform();
  for (const char* name : {"ream", "nobody"}) {
    auto u = p->LookupUser(name);
    if (u.ok() && u->uid != 0 && u->uid != static_cast<int>(::geteuid())) return *u;
  }
  return std::nullopt;
}

class ProgramSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ream-program-search-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    fs::permissions(base_, fs::perms(0755));
    private_ = base_ + "/private";
    public_ = base_ + "/public";
    fs::create_directory(private_);
    fs::create_directory(public_);
    fs::permissions(private_, fs::perms(0700));  // its owner's only: root's under make test
    fs::permissions(public_, fs::perms(0755));
    WriteProgram(private_ + "/" + kProgram, 0755);
    WriteProgram(public_ + "/" + kProgram, 0755);
  }
  void TearDown() override { fs::remove_all(base_); }
  static void WriteProgram(const std::string& path, unsigned mode) {
    std::ofstream(path) << "#!/bin/sh\necho " << path << "\n";
    fs::permissions(path, fs::perms(mode));
  }
  std::string base_, private_, public_;
};

TEST_F(ProgramSearch, TheUserGetsTheProgramInTheDirectoryItMayEnter) {
  auto user = WorkloadUser();
  if (!user) GTEST_SKIP() << "no user 'ream' or 'nobody' other than this test's own";
  auto found = FindProgramAsUser(kProgram, *user, private_ + ":" + public_ + ":/usr/bin");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, public_ + "/" + kProgram);
}

TEST_F(ProgramSearch, RootGetsTheFirstInPath) {
  RunAs root;
  root.name = "root";
  auto found = FindProgramAsUser(kProgram, root, private_ + ":" + public_);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, private_ + "/" + kProgram);
}

TEST_F(ProgramSearch, NothingTheUserMayRunIsNotFoundWithTheUserThePathAndTheFix) {
  auto user = WorkloadUser();
  if (!user) GTEST_SKIP() << "no user 'ream' or 'nobody' other than this test's own";
  // Also a file the user may not execute, in a directory it may enter.
  WriteProgram(public_ + "/" + kProgram, 0744);
  const std::string path = private_ + ":" + public_;
  auto found = FindProgramAsUser(kProgram, *user, path);
  ASSERT_FALSE(found.ok()) << *found;
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  const std::string& m = found.status().message();
  EXPECT_NE(m.find(std::string("'") + kProgram + "'"), std::string::npos) << m;
  EXPECT_NE(m.find("user " + user->name), std::string::npos) << m;
  EXPECT_NE(m.find("PATH=" + path), std::string::npos) << m;
  EXPECT_NE(m.find("may not search " + private_), std::string::npos) << m;
  EXPECT_NE(m.find("may not read and execute it (mode 0744"), std::string::npos) << m;
  EXPECT_NE(m.find("--user root"), std::string::npos) << m;
  EXPECT_NE(m.find("absolute path"), std::string::npos) << m;
}

TEST_F(ProgramSearch, TheStandardDirectoriesComeAfterPath) {
  auto user = WorkloadUser();
  if (!user) GTEST_SKIP() << "no user 'ream' or 'nobody' other than this test's own";
  auto found = FindProgramAsUser("sh", *user, private_);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(*found == "/usr/bin/sh" || *found == "/bin/sh") << *found;
}

TEST(UserHasAccess, TheFirstClassThatAppliesDecides) {
  RunAs u;
  u.name = "u";
  u.uid = 1000;
  u.gid = 1000;
  u.groups = {1000, 27};
  // The owner's class: no execute for the owner although others may.
  EXPECT_FALSE(UserHasAccess(u, S_IFREG | 0645, 1000, 0, kAccessExecute));
  EXPECT_TRUE(UserHasAccess(u, S_IFREG | 0700, 1000, 0, kAccessExecute | kAccessRead));
  // A supplementary group's class.
  EXPECT_TRUE(UserHasAccess(u, S_IFDIR | 0710, 0, 27, kAccessExecute));
  EXPECT_FALSE(UserHasAccess(u, S_IFDIR | 0701, 0, 27, kAccessExecute));
  // Others.
  EXPECT_FALSE(UserHasAccess(u, S_IFDIR | 0700, 0, 0, kAccessExecute));
  EXPECT_TRUE(UserHasAccess(u, S_IFREG | 0755, 0, 0, kAccessExecute | kAccessRead));
  EXPECT_FALSE(UserHasAccess(u, S_IFREG | 0751, 0, 0, kAccessExecute | kAccessRead));
  // Root: any directory, a file with an execute bit somewhere.
  RunAs root;
  EXPECT_TRUE(UserHasAccess(root, S_IFDIR | 0700, 1000, 1000, kAccessExecute));
  EXPECT_TRUE(UserHasAccess(root, S_IFREG | 0001, 1000, 1000, kAccessExecute));
  EXPECT_FALSE(UserHasAccess(root, S_IFREG | 0644, 1000, 1000, kAccessExecute));
}

}  // namespace
}  // namespace ream
