// The scratch directory of the running GoogleTest test, shared by the tests that write files
// (databases, specs, logs) of their own, and the fixture of the root tests that run ream into a
// database there (header only; no production code includes it).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include <gtest/gtest.h>

namespace ream::testing_support {

// An empty directory TMPDIR/PREFIX-PID-TAG, TAG being the running test's name unless given
// (a parameterized test's name holds a '/': it passes its parameter): tests of one binary, and
// two binaries at once, never share one. The test removes it in TearDown.
inline std::filesystem::path FreshTestDirectory(const std::string& prefix, const std::string& tag = "") {
  namespace fs = std::filesystem;
  const std::string name = tag.empty() ? ::testing::UnitTest::GetInstance()->current_test_info()->name() : tag;
  fs::path dir = fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A test that needs root (for `needs`: "cgroups", ...; skipped otherwise) and writes a database:
// dir_ is a fresh scratch directory named PREFIX-PID-TEST, db_ the database path r.db in it,
// and dir_ is removed after the test. A fixture that adds to SetUp calls this one first and
// returns when IsSkipped().
class RootDatabaseTest : public ::testing::Test {
 protected:
  RootDatabaseTest(std::string prefix, std::string needs) : prefix_(std::move(prefix)), needs_(std::move(needs)) {}
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (" << needs_ << ")";
    dir_ = FreshTestDirectory(prefix_);
    db_ = (dir_ / "r.db").string();
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path dir_;
  std::string db_;

 private:
  std::string prefix_;
  std::string needs_;
};

}  // namespace ream::testing_support
