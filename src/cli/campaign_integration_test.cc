// Campaigns against the real thing: Debian's munged, slurmctld and slurmd started on this host
// (scripts/slurm-local: this host the only node of one exclusive partition, loopback only, state
// in a temporary directory), a campaign of four units submitted as a real job array, one of its
// tasks cancelled with scancel and resumed, and the merged database compared with the same
// campaign run here without Slurm. The daemons are stopped by their pids and nothing is left.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/integration_test_support.h"
#include "store/sqlite.h"

namespace ream {
namespace {

namespace fs = std::filesystem;
using testing_support::Sh;

// Two specs of two partitions each: four units of two short levels on ream's synthetic server.
// One attempt per level, so both campaigns measure the same (level, attempt) points.
std::string SpecText(const std::string& name) {
  return "name = \"" + name + "\"\nseed = 3\nscenarios = [\"1-ST\"]\n"
         "[workload]\nbuiltin = \"synthetic\"\nargs = [\"--service\", \"exp:50us\"]\nthreads = 1\n"
         "[load]\nconnections = 1\nwarmup = \"100ms\"\nduration = \"300ms\"\nresponse_timeout = \"100ms\"\n"
         "attempts = 1\ntimely_tolerance = \"500us\"\n"
         "[sweep]\nqps = [300, 600]\n[partitions]\ncpu_quota = [\"100%\", \"50%\"]\n[qos]\ntarget = \"5ms\"\n";
}

std::string Read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What must match between the two campaigns: experiments by name and spec, runs by key and
// plan position, points by level and attempt.
std::vector<std::string> Keys(const std::string& db_path) {
  auto db = sql::Database::Open(db_path, false, true);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return {};
  auto st = db->Prepare(
      "SELECT json_array(e.name, e.spec_hash, e.status, r.scenario, r.partition_label, r.repetition, r.tenants, "
      "r.ordinal, p.target_load, p.attempt) FROM points p JOIN runs r ON r.id = p.run_id "
      "JOIN experiments e ON e.id = r.experiment_id ORDER BY 1");
  EXPECT_TRUE(st.ok());
  std::vector<std::string> keys;
  while (st.ok() && st->Step().value_or(false)) keys.push_back(st->Text(0));
  return keys;
}

class CampaignIntegration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) {
      skip_ = "needs root (munged, slurmd and ream's sandboxes)";
      return;
    }
    if (!fs::exists("/usr/sbin/slurmctld") || !fs::exists("/usr/sbin/munged")) {
      skip_ = "Slurm is not installed (scripts/install-deps installs slurmctld, slurmd, slurm-client, munge)";
      return;
    }
    char tmpl[] = "/tmp/ream-campaign-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    slurm_ = dir_ + "/slurm";
    auto started = Sh(std::string(REAM_SOURCE_DIR) + "/scripts/slurm-local start " + slurm_);
    if (started.code != 0) {
      // Slurm cannot run here (a container without what slurmd needs): say why, run nothing.
      skip_ = "scripts/slurm-local start failed: " + started.output;
      return;
    }
    for (const char* d : {"munged", "slurmctld", "slurmd"}) {
      pids_.push_back(std::stoi(Read(slurm_ + "/run/" + d + ".pid")));
    }
    env_ = "SLURM_CONF=" + slurm_ + "/slurm.conf ";
  }

  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    if (!pids_.empty()) {
      auto stopped = Sh(std::string(REAM_SOURCE_DIR) + "/scripts/slurm-local stop " + slurm_);
      EXPECT_EQ(stopped.code, 0) << stopped.output;
      // Each daemon has exited: gone, or a zombie waiting for init to reap it (it was started by
      // the script's shell, which has exited).
      for (int pid : pids_) {
        const std::string status = Read("/proc/" + std::to_string(pid) + "/status");
        EXPECT_TRUE(status.empty() || status.find("State:\tZ") != std::string::npos) << "pid " << pid << " still runs";
      }
      EXPECT_FALSE(fs::exists(slurm_)) << slurm_;
    }
    fs::remove_all(dir_);
  }

  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }

  // `ream campaign status DIR --json`.
  nlohmann::json Status(const std::string& campaign) {
    auto r = Sh(env_ + REAM_BINARY + " campaign status " + campaign + " --json", /*stdout_only=*/true);
    EXPECT_EQ(r.code, 0) << r.output;
    auto j = nlohmann::json::parse(r.output, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.output;
    return j.is_discarded() ? nlohmann::json::object() : j;
  }

  // Waits until no unit is pending or running and Slurm has ended the job `merge_job`.
  nlohmann::json WaitForTheMerge(const std::string& campaign, const std::string& merge_job) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    for (;;) {
      nlohmann::json s = Status(campaign);
      bool busy = false;
      for (const auto& u : s.value("units", nlohmann::json::array())) {
        busy = busy || u["state"] == "pending" || u["state"] == "running";
      }
      const bool queued = !Sh(env_ + "squeue -h -j " + merge_job, /*stdout_only=*/true).output.empty();
      if ((!busy && !queued) || std::chrono::steady_clock::now() > deadline) {
        EXPECT_FALSE(busy || queued) << "still running after 90 s: " << s.dump(2);
        return s;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }

  static std::string skip_, dir_, slurm_, env_;
  static std::vector<int> pids_;
};

std::string CampaignIntegration::skip_, CampaignIntegration::dir_, CampaignIntegration::slurm_,
    CampaignIntegration::env_;
std::vector<int> CampaignIntegration::pids_;

TEST_F(CampaignIntegration, SlurmCampaignWithACancelledUnitResumedMatchesTheSameCampaignRunHere) {
  const std::string a = dir_ + "/a.toml", b = dir_ + "/b.toml";
  std::ofstream(a) << SpecText("campaign-a");
  std::ofstream(b) << SpecText("campaign-b");

  // Here, one unit after another.
  const std::string here = dir_ + "/here";
  auto embedded = Sh(std::string(REAM_BINARY) + " campaign submit " + a + " " + b + " --dir " + here);
  ASSERT_EQ(embedded.code, 0) << embedded.output;
  nlohmann::json s = Status(here);
  EXPECT_EQ(s["progress"], "4/4 done, 0 running, 0 pending, 0 failed") << s.dump(2);

  // On Slurm: one task at a time, so the last is still waiting when it is cancelled.
  const std::string fleet = dir_ + "/fleet";
  auto submitted = Sh(env_ + REAM_BINARY + " campaign submit " + a + " " + b + " --dir " + fleet +
                      " --slurm --max-parallel 1");
  ASSERT_EQ(submitted.code, 0) << submitted.output;
  nlohmann::json manifest = nlohmann::json::parse(Read(fleet + "/campaign.json"));
  ASSERT_EQ(manifest["submissions"].size(), 1u);
  const std::string array = manifest["submissions"][0]["array_job_id"];
  const std::string merge = manifest["submissions"][0]["merge_job_id"];
  auto cancelled = Sh(env_ + "scancel " + array + "_3");
  ASSERT_EQ(cancelled.code, 0) << cancelled.output;
  s = WaitForTheMerge(fleet, merge);
  ASSERT_EQ(s["units"].size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s["units"][i]["state"], "done") << s.dump(2);
  EXPECT_EQ(s["units"][3]["state"], "failed") << s.dump(2);
  const std::string why = s["units"][3]["why"];
  EXPECT_TRUE(why.find("CANCELLED") != std::string::npos || why.find("Slurm no longer knows job " + array + "_3") !=
                                                                  std::string::npos)
      << why;
  // The merge job ran after the array: three units in, the second experiment partial.
  ASSERT_TRUE(fs::exists(fleet + "/merged.db"));
  EXPECT_EQ(Keys(fleet + "/merged.db").size(), 6u);

  auto resumed = Sh(env_ + REAM_BINARY + " campaign resume " + fleet);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  manifest = nlohmann::json::parse(Read(fleet + "/campaign.json"));
  ASSERT_EQ(manifest["submissions"].size(), 2u);
  EXPECT_EQ(manifest["submissions"][1]["indices"], nlohmann::json::array({3}));
  s = WaitForTheMerge(fleet, manifest["submissions"][1]["merge_job_id"]);
  EXPECT_EQ(s["progress"], "4/4 done, 0 running, 0 pending, 0 failed") << s.dump(2);

  const auto local = Keys(here + "/merged.db");
  EXPECT_EQ(local.size(), 8u);
  EXPECT_EQ(Keys(fleet + "/merged.db"), local);
  auto db = sql::Database::Open(fleet + "/merged.db", false, true);
  ASSERT_TRUE(db.ok());
  auto unnamed = db->Prepare("SELECT count(*) FROM runs WHERE host = '' OR "
                             "json_extract(provenance_json, '$.slurm.array_job_id') IS NULL");
  ASSERT_TRUE(unnamed.ok() && unnamed->Step().value_or(false));
  EXPECT_EQ(unnamed->Int(0), 0) << "every run names its host and its Slurm job";
  // The merged database reads as any: listed, exported with each run's host and job, analysed
  // (on a busy host every point of an experiment may come out invalid: the analysis then says
  // so, having read them).
  auto listed = Sh(std::string(REAM_BINARY) + " list --db " + fleet + "/merged.db");
  EXPECT_EQ(listed.code, 0) << listed.output;
  EXPECT_NE(listed.output.find("campaign-b"), std::string::npos) << listed.output;
  auto exported = Sh(std::string(REAM_BINARY) + " export --format json --db " + fleet + "/merged.db --out " + dir_ +
                     "/export");
  ASSERT_EQ(exported.code, 0) << exported.output;
  const nlohmann::json all = nlohmann::json::parse(Read(dir_ + "/export/experiments.json"));
  for (const auto& e : all["experiments"]) {
    for (const auto& r : e["runs"]) {
      EXPECT_EQ(r["provenance"]["slurm"]["array_job_id"].is_string(), true) << r.dump();
      EXPECT_EQ(r["provenance"]["host"], r["host"]) << r.dump();
    }
  }
  auto analyzed = Sh(std::string(REAM_BINARY) + " analyze --db " + fleet + "/merged.db");
  EXPECT_TRUE(analyzed.code == 0 || analyzed.output.find("has no valid point") != std::string::npos)
      << analyzed.output;
}

}  // namespace
}  // namespace ream
