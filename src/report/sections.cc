// The table of report sections (sections.h): a new analysis's console and page sections are one
// row here, keyed by its step's name. A plain array, so the order is the one written and nothing
// runs before main.
#include "report/sections.h"

#include "analysis/steps.h"

namespace ream::report {
namespace {

// Page sections that draw no chart.
template <void (*F)(const Page&, std::ostream&)>
void NoCharts(const Page& page, std::ostream& body, ChartSpecs*) {
  F(page, body);
}

constexpr ReportSection kSections[] = {
    {"qos", TextQos, NoCharts<QosSection>},
    {"groups", TextLoadRange, NoCharts<LoadRangeSection>},  // Table 1
    {"capacity", TextCapacity, NoCharts<CapacitySection>},  // Table 2
    {"scaling", TextScaling, NoCharts<ScalingSection>},
    {"category", TextCategory, NoCharts<CategorySection>},
    // The console reads the partitions and the model before the co-runners, the page after.
    {"sensitivity", TextSensitivity, nullptr},
    {"model", TextModel, nullptr},
    // The page says what to buy near the top, the console last.
    {"recommendation", nullptr, NoCharts<RecommendationSection>},
    {"colocation", TextColocation, ColocationSection},
    {"interference", TextInterference, InterferenceSection},
    {"groups", nullptr, ProfileSection},  // the seed's six panels against the load
    {"groups", nullptr, SessionsSection},
    {"sensitivity", nullptr, SensitivitySection},
    {"model", nullptr, ModelSection},
    {"groups", nullptr, NoCharts<PointsSection>},
    {"groups", nullptr, TimelinessSection},
    {"recommendation", TextRecommendation, nullptr},
    {"batch", TextBatch, BatchSection},
    {"across_runs", TextAcrossRuns, NoCharts<AcrossRunsSection>},
    {"manager", TextManager, ManagerSection},
};

constexpr StepWithoutSection kWithout[] = {
    {"predicted_sensitivity", "the model's section shows it, the prediction beside what was measured"},
    {"pressure", "the interference section shows it: the scores are read on the subject's curves"},
    {"predictions", "the interference section shows it, beside the reporter's scores it reads"},
    {"matrix", "the interference section shows it last, from the curves, scores and predictions above it"},
};

}  // namespace

std::span<const ReportSection> ReportSections() { return kSections; }

std::span<const StepWithoutSection> StepsWithoutSection() { return kWithout; }

bool SectionShown(const ReportSection& section, const analysis::ExperimentAnalysis& a) {
  const analysis::AnalysisStep* step = analysis::FindAnalysisStep(section.step);
  if (step && step->scope == analysis::StepScope::kRuns) return true;  // any subject's runs pool
  const bool batch_step = step && step->scope == analysis::StepScope::kBatch;
  return batch_step == a.batch.has_value();
}

}  // namespace ream::report
