// Each analysis step's two functions, for the table in analysis_steps.cc: Run* (analysis.cc)
// writes the step's part of the analysis from the data and what earlier steps wrote, and *Json
// (analysis_json.cc) maps that part to JSON. Their logic lives in the step's own file
// (capacity.cc, colocation.cc, ...); these only dispatch. Internal to analysis/.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/steps.h"

namespace ream::analysis::steps {

// kSweeps, in order.
Status RunGroups(StepContext& ctx, ExperimentAnalysis& a);
Status RunQos(StepContext& ctx, ExperimentAnalysis& a);
Status RunCapacity(StepContext& ctx, ExperimentAnalysis& a);
Status RunModel(StepContext& ctx, ExperimentAnalysis& a);
Status RunScaling(StepContext& ctx, ExperimentAnalysis& a);
Status RunCategory(StepContext& ctx, ExperimentAnalysis& a);
Status RunSensitivity(StepContext& ctx, ExperimentAnalysis& a);
Status RunPredictedSensitivity(StepContext& ctx, ExperimentAnalysis& a);
Status RunRecommendation(StepContext& ctx, ExperimentAnalysis& a);
// kShared, in order.
Status RunColocation(StepContext& ctx, ExperimentAnalysis& a);
Status RunInterference(StepContext& ctx, ExperimentAnalysis& a);
Status RunPressure(StepContext& ctx, ExperimentAnalysis& a);
Status RunPredictions(StepContext& ctx, ExperimentAnalysis& a);
Status RunMatrix(StepContext& ctx, ExperimentAnalysis& a);
// kBatch.
Status RunBatch(StepContext& ctx, ExperimentAnalysis& a);
// kRuns.
Status RunAcrossRuns(StepContext& ctx, ExperimentAnalysis& a);
Status RunManager(StepContext& ctx, ExperimentAnalysis& a);

void GroupsJson(const ExperimentAnalysis& a, nlohmann::json& j);
void QosJson(const ExperimentAnalysis& a, nlohmann::json& j);
void CapacityJson(const ExperimentAnalysis& a, nlohmann::json& j);
void ModelJson(const ExperimentAnalysis& a, nlohmann::json& j);
void ScalingJson(const ExperimentAnalysis& a, nlohmann::json& j);
void CategoryJson(const ExperimentAnalysis& a, nlohmann::json& j);
void SensitivityJson(const ExperimentAnalysis& a, nlohmann::json& j);
void PredictedSensitivityJson(const ExperimentAnalysis& a, nlohmann::json& j);
void RecommendationJson(const ExperimentAnalysis& a, nlohmann::json& j);
void ColocationJson(const ExperimentAnalysis& a, nlohmann::json& j);
void InterferenceJson(const ExperimentAnalysis& a, nlohmann::json& j);
void PressureJson(const ExperimentAnalysis& a, nlohmann::json& j);
void PredictionsJson(const ExperimentAnalysis& a, nlohmann::json& j);
void MatrixJson(const ExperimentAnalysis& a, nlohmann::json& j);
void BatchJson(const ExperimentAnalysis& a, nlohmann::json& j);
void AcrossRunsJson(const ExperimentAnalysis& a, nlohmann::json& j);
void ManagerJson(const ExperimentAnalysis& a, nlohmann::json& j);

}  // namespace ream::analysis::steps
