// The table of analysis steps: names unique and each step complete, and ToJson made of the
// steps' parts.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/steps.h"

namespace ream::analysis {
namespace {

TEST(AnalysisSteps, EachStepHasAUniqueNameARunAndAJsonPart) {
  std::set<std::string_view> names;
  for (const AnalysisStep& step : AnalysisSteps()) {
    EXPECT_FALSE(step.name.empty());
    EXPECT_TRUE(names.insert(step.name).second) << "two steps named " << step.name;
    EXPECT_NE(step.run, nullptr) << step.name;
    EXPECT_NE(step.to_json, nullptr) << step.name;
    EXPECT_EQ(FindAnalysisStep(step.name), &step);
  }
  EXPECT_EQ(FindAnalysisStep("no such step"), nullptr);
}

TEST(AnalysisSteps, TheGroupsRunFirstAndEveryScopeIsPresent) {
  auto steps = AnalysisSteps();
  ASSERT_FALSE(steps.empty());
  // Every other sweeps step reads the merged groups.
  EXPECT_EQ(steps.front().name, "groups");
  std::set<StepScope> scopes;
  for (const AnalysisStep& step : steps) scopes.insert(step.scope);
  EXPECT_EQ(scopes.size(), 4u);
}

// ToJson is the experiment's own keys and each step's part: an analysis with nothing in it
// still has every key a step writes for an empty part.
TEST(AnalysisSteps, ToJsonHoldsEachStepsPart) {
  ExperimentAnalysis a;
  a.experiment = "e";
  nlohmann::json j = ToJson(a);
  for (const char* key : {"experiment", "qos", "groups", "scaling", "category", "sensitivity",
                          "predicted_sensitivity", "recommendation", "warnings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"colocation", "interference", "matrix", "batch", "across_runs"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  nlohmann::json part;
  FindAnalysisStep("qos")->to_json(a, part);
  EXPECT_EQ(part["qos"], j["qos"]);
}

}  // namespace
}  // namespace ream::analysis
