// The `ream` binary's handling of bad input and its doctor output on fixture trees.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/table.h"
#include "platform/platform.h"
#include "platform/test_directory.h"

#include <filesystem>
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

// `ream merge` refuses a database of an older schema (it migrates nothing), naming both files,
// as bad input; nothing is created.
TEST(Cli, MergeRefusesAnOlderDatabaseNamingBoth) {
  const auto dir = testing_support::FreshTestDirectory("ream-cli-merge");
  const std::string old = (dir / "old.db").string(), out = (dir / "out.db").string();
  std::filesystem::copy_file(std::string(REAM_SOURCE_DIR) + "/src/store/testdata/schema_v9/fixture.sqlite", old);
  auto r = Ream({"merge", out, old});
  EXPECT_EQ(r.exit_code, cli::kExitBadInput) << r.err;
  EXPECT_NE(r.err.find(old + " has results schema version 9 and " + out), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
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

// The seed's main node on paper: the shipped example's placement table for two Xeon Silver
// 4116, which this machine cannot be.
TEST(Cli, DryRunPlansOnTheSeedMachinesTopology) {
  const std::string seed = std::string(REAM_SOURCE_DIR) + "/src/topology/testdata/seed-4116x2";
  const std::string spec = std::string(REAM_SOURCE_DIR) + "/examples/seed-platform.toml";
  auto r = Ream({"run", "--dry-run", "--topology", seed, spec});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is valid on paper for the machine in " + seed), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("placement on Intel(R) Xeon(R) Silver 4116 CPU @ 2.10GHz: 2 package(s), 24 cores, 48 logical "
                       "CPUs (2 per core)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("2-SMT, partition llc_ways=2, beside kv+povray+mcf+xz:"), std::string::npos) << r.err;
  // The subject's row in 2-SMT: both threads of core 0 of package 0, its own 2 ways; mcf's
  // bandwidth as the mount takes it; the generator on the other socket's last core.
  std::istringstream lines(r.err);
  std::string line;
  bool in_run = false, subject = false, mcf = false, generator = false;
  while (std::getline(lines, line)) {
    if (line.find("2-SMT, partition llc_ways=2, beside") != std::string::npos) in_run = true;
    if (!in_run) continue;
    if (line.find("    subject ") == 0) {
      subject = true;
      EXPECT_NE(line.find("0,24 (2-SMT)"), std::string::npos) << line;
      EXPECT_NE(line.find("0:0x2"), std::string::npos) << line;
      EXPECT_NE(line.find("0x003 (2)"), std::string::npos) << line;
    }
    if (line.find("    mcf ") == 0) {
      mcf = true;
      EXPECT_NE(line.find("batch mcf"), std::string::npos) << line;
      EXPECT_NE(line.find("30% -> MB 30%"), std::string::npos) << line;
    }
    if (line.find("    generator ") == 0) {
      generator = true;
      EXPECT_NE(line.find("23,47"), std::string::npos) << line;
      EXPECT_NE(line.find("1:11x2"), std::string::npos) << line;
      break;
    }
  }
  EXPECT_TRUE(subject && mcf && generator) << r.err;
  // --topology is a plan on paper only.
  auto alone = Ream({"run", "--topology", seed, spec});
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE((alone.err + alone.out).find("--dry-run"), std::string::npos) << alone.err;
  auto missing = Ream({"run", "--dry-run", "--topology", "/nonexistent/ream-machine", spec});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("/nonexistent/ream-machine"), std::string::npos) << missing.err;
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
