#include "campaign/campaign_units.h"

#include <set>

#include "experiment/plan.h"

namespace ream {

std::string CampaignUnit::Label() const {
  return experiment + ": " + scenario + " / " + partition_label + " / repetition " + std::to_string(repetition);
}

nlohmann::json CampaignUnit::ToJson() const {
  return {{"index", index},
          {"spec", spec},
          {"experiment", experiment},
          {"scenario", scenario},
          {"partition", partition_label},
          {"repetition", repetition},
          {"ordinals", ordinals},
          {"sets", sets}};
}

Result<CampaignUnit> CampaignUnit::FromJson(const nlohmann::json& j) {
  CampaignUnit u;
  try {
    u.index = j.at("index").get<int>();
    u.spec = j.at("spec").get<int>();
    u.experiment = j.at("experiment").get<std::string>();
    u.scenario = j.at("scenario").get<std::string>();
    u.partition_label = j.at("partition").get<std::string>();
    u.repetition = j.at("repetition").get<int>();
    u.ordinals = j.at("ordinals").get<std::vector<int>>();
    u.sets = j.at("sets").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return Corrupt(std::string("a campaign unit: ") + e.what());
  }
  return u;
}

Result<std::vector<CampaignUnit>> SplitIntoUnits(const std::vector<ExperimentSpec>& specs) {
  std::vector<CampaignUnit> units;
  std::set<std::string> names;
  for (size_t s = 0; s < specs.size(); ++s) {
    const ExperimentSpec& spec = specs[s];
    if (!names.insert(spec.name).second) {
      return InvalidArgument(spec.source + ": experiment name '" + spec.name +
                             "' is also another spec's; each experiment of a campaign needs its own name");
    }
    REAM_ASSIGN_OR_RETURN(Plan plan, MakePlan(spec, ""));
    for (const PlannedRun& run : plan.runs) {
      const std::string label = run.partition.Label();
      if (units.empty() || units.back().spec != static_cast<int>(s) || units.back().scenario != run.scenario ||
          units.back().partition_label != label || units.back().repetition != run.repetition) {
        CampaignUnit u;
        u.index = static_cast<int>(units.size());
        u.spec = static_cast<int>(s);
        u.experiment = spec.name;
        u.scenario = run.scenario;
        u.partition_label = label;
        u.repetition = run.repetition;
        units.push_back(std::move(u));
      }
      units.back().ordinals.push_back(run.ordinal);
      units.back().sets.push_back(run.corunner_set);
    }
  }
  return units;
}

}  // namespace ream
