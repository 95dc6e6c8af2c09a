#include "platform/platform.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ream {
namespace {

// Files ream creates (state files, exports, reports, event logs) never get group/other
// write, whatever the umask; a link is told apart from what it points to.
TEST(PosixPlatformFiles, CreatedWithoutGroupOrOtherWriteAndLinksSeen) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ream-platform-modes-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto p = MakePosixPlatform();
  const mode_t old = ::umask(0);
  ASSERT_TRUE(p->WriteFile((dir / "w").string(), "x").ok());
  ASSERT_TRUE(p->AppendFile((dir / "a").string(), "x").ok());
  { ASSERT_TRUE(p->OpenForWriting((dir / "o").string()).ok()); }
  ASSERT_TRUE(p->MakeDir((dir / "d").string()).ok());
  ::umask(old);
  for (const char* f : {"w", "a", "o", "d"}) {
    struct stat st {};
    ASSERT_EQ(::stat((dir / f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 022, 0u) << f << " mode " << std::oct << (st.st_mode & 0777);
  }
  fs::create_symlink(dir / "w", dir / "l");
  EXPECT_TRUE(p->IsSymlink((dir / "l").string()));
  EXPECT_FALSE(p->IsSymlink((dir / "w").string()));
  EXPECT_FALSE(p->IsSymlink((dir / "absent").string()));
  fs::remove_all(dir);
}

// rm -r of a tree a workload wrote: everything in it goes, nothing its links point at does.
TEST(PosixPlatformFiles, RemoveTreeNoFollowRemovesTheTreeAndNothingItsLinksReach) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("ream-platform-tree-" + std::to_string(::getpid()));
  fs::remove_all(base);
  const fs::path tree = base / "tree", outside = base / "outside";
  fs::create_directories(tree / "a" / "b" / "c");
  fs::create_directories(outside / "sub");
  std::ofstream(outside / "keep") << "keep";
  std::ofstream(outside / "sub" / "keep") << "keep";
  std::ofstream(tree / "f") << "x";
  std::ofstream(tree / "a" / "b" / "c" / "deep") << "x";
  fs::create_symlink(outside, tree / "dir-link");
  fs::create_symlink(outside, tree / "a" / "b" / "dir-link");
  fs::create_symlink(outside / "keep", tree / "a" / "file-link");
  fs::create_symlink(base / "nowhere", tree / "dangling");
  auto p = MakePosixPlatform();
  // The tree's own name a link: refused, its target untouched.
  fs::create_symlink(outside, base / "link-to-outside");
  EXPECT_EQ(p->RemoveTreeNoFollow((base / "link-to-outside").string()).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(fs::exists(outside / "sub" / "keep"));
  Status s = p->RemoveTreeNoFollow(tree.string());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree)));
  EXPECT_TRUE(fs::exists(outside / "keep"));
  EXPECT_TRUE(fs::exists(outside / "sub" / "keep"));
  EXPECT_EQ(p->RemoveTreeNoFollow(tree.string()).code(), StatusCode::kNotFound);
  fs::remove_all(base);
}

TEST(PosixPlatformUsers, LooksUpAnAccountAndNamesAMissingOne) {
  auto p = MakePosixPlatform();
  auto root = p->LookupUser("root");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->uid, 0);
  EXPECT_EQ(root->gid, 0);
  EXPECT_FALSE(root->groups.empty());
  auto none = p->LookupUser("no-such-user-for-ream");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("no-such-user-for-ream"), std::string::npos);
}

TEST(CpuList, ParsesRangesAndSingles) {
  auto r = ParseCpuList("0-3,8,10-11\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(FormatCpuList(*r), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(ParseCpuList("").value(), std::vector<int>{});
}

TEST(CpuList, RejectsGarbage) {
  EXPECT_FALSE(ParseCpuList("a-b").ok());
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("1,-2").ok());
  EXPECT_FALSE(ParseCpuList("99999999").ok());
}

TEST(Strings, TrimAndSplit) {
  EXPECT_EQ(Trim("  a b \n"), "a b");
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Split("a,,b", ',', false), (std::vector<std::string>{"a", "", "b"}));
}

TEST(PosixPlatform, RunCapturesOutputAndExitCode) {
  auto p = MakePosixPlatform();
  auto r = p->Run({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(5));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->Describe(), "exit 3: err");
}

TEST(PosixPlatform, RunReportsMissingProgramAndTimeout) {
  auto p = MakePosixPlatform();
  auto missing = p->Run({"ream-no-such-program"}, std::chrono::seconds(1));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto slow = p->Run({"sleep", "5"}, std::chrono::milliseconds(100));
  EXPECT_EQ(slow.status().code(), StatusCode::kTimeout);
}

TEST(PosixPlatform, FilesRoundTrip) {
  auto p = MakePosixPlatform();
  std::string dir = "/tmp/ream-platform-test-" + std::to_string(p->ProcessId());
  ASSERT_TRUE(p->MakeDir(dir).ok());
  EXPECT_EQ(p->MakeDir(dir).code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(p->WriteFile(dir + "/f", "hello").ok());
  ASSERT_TRUE(p->AppendFile(dir + "/f", " world").ok());
  EXPECT_EQ(*p->ReadFile(dir + "/f"), "hello world");
  auto list = p->ListDir(dir);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].name, "f");
  EXPECT_EQ(p->ReadFile(dir + "/missing").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(p->RemoveFile(dir + "/f").ok());
  ASSERT_TRUE(p->RemoveDir(dir).ok());
  EXPECT_FALSE(p->Exists(dir));
}

TEST(PosixPlatform, MonotonicClockAdvances) {
  auto p = MakePosixPlatform();
  int64_t a = p->MonotonicNanos();
  int64_t b = p->MonotonicNanos();
  EXPECT_GE(b, a);
  EXPECT_GT(p->WallNanos(), 1600000000LL * 1000000000LL);
}

TEST(RootedPlatform, MapsAbsolutePathsUnderTheRoot) {
  RootedPlatform p(std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/nosmt/");
  auto online = p.ReadFile("/sys/devices/system/cpu/online");
  ASSERT_TRUE(online.ok()) << online.status().ToString();
  EXPECT_EQ(Trim(*online), "0-1");
  EXPECT_FALSE(p.Exists("/etc/passwd"));
  EXPECT_EQ(p.Run({"ip", "link"}, std::chrono::seconds(1)).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(p.commands().size(), 1u);
}

TEST(RootedPlatform, OpenRejectsAMissingRoot) {
  auto r = RootedPlatform::Open("/nonexistent/ream-fixture");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/ream-fixture"), std::string::npos);
}

}  // namespace
}  // namespace ream
