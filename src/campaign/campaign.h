// A campaign: experiment specs split into units (experiment/campaign_units.h), each run on a
// host of its own into a database of its own under the campaign's directory, then merged into
// one (store/merge.h). The units run here one after another (embedded), or as a Slurm job array
// on a fleet (experiment/slurm.h) with a last job, dependent on the array, merging them.
//
// The directory (shared storage on a fleet) holds everything a later command needs:
//   campaign.json       the manifest: specs, units, options, every submission's job ids
//   specs/N-NAME.toml   the specs as submitted (every unit reads the same text)
//   unit.sh, merge.sh   the scripts Slurm runs
//   units/I/unit.db     unit I's database (its runs only); attempt-K.db an earlier attempt's
//   units/I/started.json, result.json   when and where it started; how it ended
//   units/I/slurm.out   its Slurm output;   merged.db   the merge;   lock   an embedded run's pid
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_units.h"
#include "experiment/runner.h"
#include "campaign/slurm.h"
#include "platform/platform.h"
#include "platform/timing_floor.h"
#include "store/merge.h"

namespace ream {

struct CampaignOptions {
  bool slurm = false;
  SlurmSubmitOptions submit;  // --partition, --constraint, --max-parallel, --exclude-host
  // The quiet-host gate: a unit whose host, measured before any run, spends more than this
  // share of the time stalled on one of its CPUs (platform/timing_floor.h) fails at once as
  // noisy, to run again elsewhere (resume --exclude-host). 0: no gate.
  double max_stall_fraction = 0;
};

struct Campaign {
  std::string dir;  // absolute
  std::string id;   // a hash of the directory and the creation time
  int64_t created_ns = 0;
  std::string ream;  // the ream binary Slurm's jobs run (absolute)
  CampaignOptions options;
  struct Spec {
    std::string file;  // under dir: "specs/0-kv.toml"
    std::string source;  // as given to submit
    std::string name;
    std::string spec_hash;
  };
  std::vector<Spec> specs;
  std::vector<CampaignUnit> units;
  struct Submission {
    std::string array_job_id, merge_job_id;
    std::vector<int> indices;
    int64_t submitted_ns = 0;
  };
  std::vector<Submission> submissions;

  std::string UnitDir(int index) const { return dir + "/units/" + std::to_string(index); }
  nlohmann::json ToJson() const;
  static Result<Campaign> FromJson(const nlohmann::json& j, const std::string& dir);
};

// Creates the campaign in `dir` (absent or empty): the specs copied, split into units, the
// manifest written. InvalidArgument for a spec that does not parse or names an experiment twice.
Result<Campaign> CreateCampaign(Platform& p, const std::string& dir, const std::vector<std::string>& spec_paths,
                                const std::string& ream_binary, const CampaignOptions& options);
// NotFound when `dir` holds no campaign.
Result<Campaign> LoadCampaign(Platform& p, const std::string& dir);
Status SaveCampaign(Platform& p, const Campaign& c);

// How a unit ended (units/I/result.json).
struct UnitResult {
  bool ok = false;
  std::string code;   // "ok", or the Status code's name ("Cancelled", "Unavailable", ...)
  std::string error;  // its message
  std::string host;
  std::string slurm_job_id;
  int64_t started_ns = 0, finished_ns = 0;
};
Result<std::optional<UnitResult>> ReadUnitResult(Platform& p, const Campaign& c, int index);

// The quiet-host gate's verdict on `floor`, measured on `host`: Unavailable naming the CPU
// most stalled and what to do when it stalled more than `limit` of the time.
Status QuietHostVerdict(const TimingFloor& floor, double limit, const std::string& host, const std::string& dir);

// Runs unit `index` into units/I/unit.db with `base`'s runner settings (sandbox kind and
// driver, ream's version, the Slurm job's provenance) and records how it ended in result.json;
// the unit's own error as the Status. A unit with an ok result is not run again; an earlier
// attempt's database is moved aside (a run never mixes two attempts' points).
Status RunUnit(Platform& p, const Campaign& c, int index, RunnerOptions base);

// Merges every unit with an ok result into merged.db (again: adds only the new ones), then
// marks each experiment complete when all its units are in, else partial naming the missing.
Result<MergeReport> MergeCampaign(Platform& p, const Campaign& c);

// Where each unit stands: done, running, pending, failed, or not submitted.
struct UnitState {
  int index = 0;
  std::string state;
  std::string why;   // Slurm's reason, or the unit's error
  std::string host;
  std::optional<double> seconds;  // how long it ran (done ones)
  std::string label;
};
// `slurm` null: an embedded campaign, or Slurm not asked.
Result<std::vector<UnitState>> CampaignStatus(Platform& p, const Campaign& c, SlurmClient* slurm);
// "3/4 done, 1 running, 0 pending, 0 failed; about 40 s left"
std::string CampaignProgress(const std::vector<UnitState>& states);

}  // namespace ream
