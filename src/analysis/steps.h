// The analysis as a table of steps, in the order they run: each reads the experiment's data and
// what earlier steps wrote into the ExperimentAnalysis, writes its own part, and maps that part
// to JSON. Analyze, AnalyzeSweeps and ToJson iterate the table; the report keys its sections
// by the same names (report/sections.h). A new analysis is a run and a JSON function
// (step_functions.h) and one row of the table (analysis_steps.cc); its logic lives in its own
// file, like capacity.cc or colocation.cc.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "platform/status.h"

namespace ream::analysis {

// Which runs a step reads, and so which driver runs it.
enum class StepScope {
  kSweeps,  // a server's sweeps, analyzed as one subject: AnalyzeSweeps (also each co-runner set's runs)
  kShared,  // a shared server's co-runner sets against its alone runs: Analyze, after the sweeps
  kBatch,   // a batch subject (load axis copies): Analyze, instead of the sweeps
  kRuns,    // runs of one spec pooled: Analyze, last, whatever the subject
};

// What a step reads besides the analysis so far.
struct StepContext {
  // kSweeps: the runs analyzed as one subject; kShared and kBatch: every run of the experiment.
  const ExperimentData& data;
  const AnalysisOptions& options;
  // kShared: the reporter experiment analyzed by the predictions step, for the matrix; unset
  // without a reporter or when it could not be analyzed (reporter_note says why).
  std::optional<ExperimentAnalysis> reporter = std::nullopt;
};

struct AnalysisStep {
  std::string_view name;  // the report's sections use the same name
  StepScope scope;
  // Writes the step's part of the analysis. An error stops the analysis (InvalidArgument when
  // there is nothing to analyze); a figure it cannot compute is said in the analysis instead.
  Status (*run)(StepContext& ctx, ExperimentAnalysis& a);
  // Writes the step's keys of `ToJson`'s object (whatever the scope: an analysis that did not
  // run the step has its part empty, and the step writes what an empty part means).
  void (*to_json)(const ExperimentAnalysis& a, nlohmann::json& j);
};

// Every step, in the order they run.
std::span<const AnalysisStep> AnalysisSteps();

// The step of that name; nullptr when there is none.
const AnalysisStep* FindAnalysisStep(std::string_view name);

}  // namespace ream::analysis
