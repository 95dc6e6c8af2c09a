// InspectExecutable on real files: a dynamic ELF, a script, a missing path; FindLoadedSymbol.
#include "platform/executable.h"

#include <gtest/gtest.h>

#include "platform/platform.h"

namespace ream {
namespace {

TEST(InspectExecutable, ADynamicProgramHasAnInterpreter) {
  auto p = MakePosixPlatform();
  auto exe = p->FindExecutable("true");
  ASSERT_TRUE(exe.ok());
  auto info = InspectExecutable(*exe);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_TRUE(info->elf);
  EXPECT_TRUE(info->dynamic);
  EXPECT_FALSE(info->set_id);
  EXPECT_EQ(info->interpreter, "");
}

TEST(InspectExecutable, AScriptNamesItsInterpreterAndAMissingFileIsNotFound) {
  auto p = MakePosixPlatform();
  std::string path = "/tmp/ream-inspect-test-" + std::to_string(p->ProcessId()) + ".sh";
  ASSERT_TRUE(p->WriteFile(path, "#!  /bin/sh -e\necho hi\n").ok());
  auto info = InspectExecutable(path);
  (void)p->RemoveFile(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_FALSE(info->elf);
  EXPECT_EQ(info->interpreter, "/bin/sh");
  auto missing = InspectExecutable("/nonexistent-ream-program");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(FindLoadedSymbol, FindsLibcAndNotWhatNothingExports) {
  EXPECT_NE(FindLoadedSymbol("malloc"), nullptr);
  // libream-overhead.so is not loaded in the test: ream's servers then leave o alone.
  EXPECT_EQ(FindLoadedSymbol("ream_overhead_take_over"), nullptr);
}

}  // namespace
}  // namespace ream
