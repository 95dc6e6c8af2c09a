// The table of report sections against the table of analysis steps: a step added without a
// console or page section (and without saying where it is shown instead) fails here.
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "analysis/steps.h"
#include "report/sections.h"

namespace ream::report {
namespace {

TEST(ReportSections, EveryAnalysisStepIsShownInBothFormatsOrSaysWhereInstead) {
  for (const analysis::AnalysisStep& step : analysis::AnalysisSteps()) {
    bool text = false, html = false;
    for (const ReportSection& s : ReportSections()) {
      if (s.step != step.name) continue;
      text = text || s.text != nullptr;
      html = html || s.html != nullptr;
    }
    const StepWithoutSection* without = nullptr;
    for (const StepWithoutSection& w : StepsWithoutSection()) {
      if (w.step == step.name) without = &w;
    }
    if (without) {
      EXPECT_FALSE(text || html) << step.name << " has a section and is also declared to have none";
      EXPECT_FALSE(without->why.empty()) << step.name << " is declared to have no section without saying why";
    } else {
      EXPECT_TRUE(text) << "analysis step '" << step.name
                        << "' has no console section: add a row to report/sections.cc, or to its "
                           "StepsWithoutSection saying where it is shown";
      EXPECT_TRUE(html) << "analysis step '" << step.name
                        << "' has no page section: add a row to report/sections.cc, or to its "
                           "StepsWithoutSection saying where it is shown";
    }
  }
}

TEST(ReportSections, EveryRowNamesAnAnalysisStep) {
  for (const ReportSection& s : ReportSections()) {
    EXPECT_NE(analysis::FindAnalysisStep(s.step), nullptr) << "section of unknown step '" << s.step << "'";
    EXPECT_TRUE(s.text || s.html) << "a row of '" << s.step << "' writes nothing";
  }
  for (const StepWithoutSection& w : StepsWithoutSection()) {
    EXPECT_NE(analysis::FindAnalysisStep(w.step), nullptr) << "unknown step '" << w.step << "'";
  }
}

// The runs pooled across one spec (across_runs) are any subject's, so both show that one too, and
// so is the modes' comparison (manager), which writes nothing for a batch subject: it has no
// windows.
TEST(ReportSections, ABatchSubjectShowsItsBatchSectionAloneAndAServerEveryOther) {
  analysis::ExperimentAnalysis server;
  analysis::ExperimentAnalysis batch;
  batch.batch = analysis::BatchAnalysis{};
  std::set<std::string> server_steps, batch_steps;
  for (const ReportSection& s : ReportSections()) {
    if (SectionShown(s, server)) server_steps.insert(std::string(s.step));
    if (SectionShown(s, batch)) batch_steps.insert(std::string(s.step));
  }
  EXPECT_EQ(batch_steps, (std::set<std::string>{"batch", "across_runs", "manager"}));
  std::ostringstream manager_text;
  TextManager(MakeTextPage(batch), manager_text);
  EXPECT_EQ(manager_text.str(), "");
  EXPECT_EQ(server_steps.count("across_runs"), 1u);
  EXPECT_EQ(server_steps.count("batch"), 0u);
  EXPECT_EQ(server_steps.count("qos"), 1u);
  EXPECT_EQ(server_steps.count("colocation"), 1u);
}

}  // namespace
}  // namespace ream::report
