// The `ream` binary's handling of bad input and its doctor output on fixture trees.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/table.h"
#include "platform/platform.h"

#include <sstream>

namespace ream {
namespace {

CommandResult Ream(std::vector<std::string> args) {
  args.insert(args.begin(), REAM_BINARY);
  auto r = MakePosixPlatform()->Run(args, std::chrono::seconds(60));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : CommandResult{};
}

TEST(Cli, UnknownSubcommandFailsWithAMessage) {
  auto r = Ream({"frobnicate"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.err + r.out).find("frobnicate"), std::string::npos) << r.err;
}

TEST(Cli, NoSubcommandFails) {
  auto r = Ream({});
  EXPECT_NE(r.exit_code, 0);
}

TEST(Cli, UnknownFlagFailsWithAMessage) {
  auto r = Ream({"doctor", "--no-such-flag"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.err + r.out).find("--no-such-flag"), std::string::npos) << r.err;
}

TEST(Cli, DoctorWithMissingFixtureRootFails) {
  auto r = Ream({"doctor", "--root", "/nonexistent/ream-fixture"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.err + r.out).find("/nonexistent/ream-fixture"), std::string::npos) << r.err;
}

TEST(Cli, DoctorJsonOnAFixtureTree) {
  auto r = Ream({"doctor", "--json", "--root",
                 std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/smt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["topology"]["threads_per_core"], 2);
  bool found_smt = false;
  for (const auto& c : j["capabilities"]) {
    EXPECT_TRUE(c.contains("name") && c.contains("status") && c.contains("detail"));
    if (c["name"] == "cpu.smt") {
      found_smt = true;
      EXPECT_EQ(c["status"], "supported");
    }
    // Nothing was tried against a fixture, so no kernel object probe claims success.
    if (c["name"] == "tc.htb") {
      EXPECT_EQ(c["status"], "unknown");
    }
  }
  EXPECT_TRUE(found_smt);
}

TEST(Cli, VersionPrintsTheCommit) {
  auto r = Ream({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("ream ", 0), 0u) << r.out;
}

TEST(Table, AlignsColumns) {
  cli::Table t({"A", "LONGER"});
  t.AddRow({"xyz", "1"});
  std::ostringstream os;
  t.Print(os);
  EXPECT_EQ(os.str(), "A    LONGER\nxyz  1\n");
}

// One table for every command: the same cause gives the same code in load, exec, run, serve.
TEST(ExitCodes, OneMappingFromStatus) {
  EXPECT_EQ(cli::ExitCodeFor(Status::Ok()), 0);
  EXPECT_EQ(cli::ExitCodeFor(InvalidArgument("--qps")), cli::kExitBadInput);
  EXPECT_EQ(cli::ExitCodeFor(NotFound("spec.toml")), cli::kExitBadInput);
  EXPECT_EQ(cli::ExitCodeFor(Unsupported("no resctrl")), cli::kExitBadInput);
  EXPECT_EQ(cli::ExitCodeFor(Unavailable("connection refused")), cli::kExitCouldNotRun);
  EXPECT_EQ(cli::ExitCodeFor(IoError("write")), cli::kExitCouldNotRun);
  EXPECT_EQ(cli::ExitCodeFor(Cancelled("SIGINT")), 130);
  EXPECT_EQ(cli::kExitBadInput, 2);
  EXPECT_EQ(cli::kExitCouldNotRun, 1);
  EXPECT_EQ(cli::kExitMeasuredWithFailures, 3);
}

TEST(ExitCodes, BadInputIsTwoInEveryCommand) {
  EXPECT_EQ(Ream({"load", "--target", "127.0.0.1:9", "--qps", "0"}).exit_code, cli::kExitBadInput);
  EXPECT_EQ(Ream({"run", "/nonexistent/spec.toml"}).exit_code, cli::kExitBadInput);
  EXPECT_EQ(Ream({"exec"}).exit_code, cli::kExitBadInput);
  EXPECT_EQ(Ream({"serve", "synthetic", "--service", "gauss:3us"}).exit_code, cli::kExitBadInput);
  EXPECT_EQ(Ream({"nosuchcommand"}).exit_code, cli::kExitBadInput);
}

}  // namespace
}  // namespace ream
