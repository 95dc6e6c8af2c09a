// A campaign's units (experiment/campaign.h): the smallest pieces of its specs' plans whose
// comparisons do not cross hosts. A unit is one run of the subject — a scenario, a partition,
// a repetition — with the co-runner sets beside it and its alone measurement: the plan's
// consecutive runs sharing those three (MakePlan puts the alone run and each set's in turn),
// so a shared run and the alone run it is set against are measured on the same host. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/status.h"
#include "spec/spec.h"

namespace ream {

struct CampaignUnit {
  int index = 0;  // 0-based across the campaign: the Slurm array's task id
  int spec = 0;   // which of the campaign's specs
  std::string experiment;
  std::string scenario;
  std::string partition_label;
  int repetition = 0;
  std::vector<int> ordinals;       // the runs' positions in the experiment's whole plan
  std::vector<std::string> sets;   // each run's co-runner set; "" for the subject alone
  // "kv: 1-ST / cpu_quota=50% / repetition 0"
  std::string Label() const;
  nlohmann::json ToJson() const;
  static Result<CampaignUnit> FromJson(const nlohmann::json& j);
};

// The units of `specs` (distinct names), in the specs' order and each plan's.
Result<std::vector<CampaignUnit>> SplitIntoUnits(const std::vector<ExperimentSpec>& specs);

}  // namespace ream
