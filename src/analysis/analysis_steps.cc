// The table of analysis steps (steps.h), in the order they run: a new analysis is one row here.
// A plain array of names and function pointers, so nothing runs before main and the order is
// the one written.
#include "analysis/step_functions.h"

namespace ream::analysis {
namespace {

constexpr AnalysisStep kSteps[] = {
    // A server's sweeps: the groups' merged points first, everything else reads them.
    {"groups", StepScope::kSweeps, steps::RunGroups, steps::GroupsJson},
    {"qos", StepScope::kSweeps, steps::RunQos, steps::QosJson},
    {"capacity", StepScope::kSweeps, steps::RunCapacity, steps::CapacityJson},
    {"model", StepScope::kSweeps, steps::RunModel, steps::ModelJson},
    {"scaling", StepScope::kSweeps, steps::RunScaling, steps::ScalingJson},
    {"category", StepScope::kSweeps, steps::RunCategory, steps::CategoryJson},
    {"sensitivity", StepScope::kSweeps, steps::RunSensitivity, steps::SensitivityJson},
    {"predicted_sensitivity", StepScope::kSweeps, steps::RunPredictedSensitivity, steps::PredictedSensitivityJson},
    {"recommendation", StepScope::kSweeps, steps::RunRecommendation, steps::RecommendationJson},
    // A shared server: each co-runner set against the subject alone, then what the sets'
    // curves and scores say.
    {"colocation", StepScope::kShared, steps::RunColocation, steps::ColocationJson},
    {"interference", StepScope::kShared, steps::RunInterference, steps::InterferenceJson},
    {"pressure", StepScope::kShared, steps::RunPressure, steps::PressureJson},
    {"predictions", StepScope::kShared, steps::RunPredictions, steps::PredictionsJson},
    {"matrix", StepScope::kShared, steps::RunMatrix, steps::MatrixJson},
    // A batch subject: run times and throughput instead of the sweeps.
    {"batch", StepScope::kBatch, steps::RunBatch, steps::BatchJson},
    // Runs of one spec pooled: each run on its own beside the pool.
    {"across_runs", StepScope::kRuns, steps::RunAcrossRuns, steps::AcrossRunsJson},
    {"manager", StepScope::kRuns, steps::RunManager, steps::ManagerJson},
};

}  // namespace

std::span<const AnalysisStep> AnalysisSteps() { return kSteps; }

const AnalysisStep* FindAnalysisStep(std::string_view name) {
  for (const AnalysisStep& s : kSteps) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace ream::analysis
