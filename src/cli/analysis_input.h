// What `ream analyze` and `ream report` share: their options, and loading an experiment
// (and an optional baseline) from the results store and analyzing it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/analysis.h"
#include "analysis/data.h"
#include "platform/platform.h"

namespace ream::cli {

struct AnalyzeOptions {
  std::string db = "results.db";
  std::string experiment;  // empty: the most recent
  std::string baseline;    // a zero-work baseline experiment for the model's delay center
  std::string reporter;    // an experiment whose pressure scores predict this subject
  std::vector<std::string> with;  // other runs of the same spec, pooled with this one
  double target_qps = 0;   // 0: no recommendation
  bool json = false;
  // report only
  std::string out = "report.html";
  std::string assets;
};

struct Loaded {
  analysis::ExperimentData data;
  analysis::ExperimentData baseline;
  analysis::ExperimentData reporter;
  std::vector<analysis::ExperimentData> others;  // the matrix's other subjects (with a reporter)
  analysis::ExperimentAnalysis analysis;
};

// Loads and analyzes; prints "ream <cmd>: <reason>" and returns nullptr on failure (no
// database, unknown experiment, no valid point, ...).
std::unique_ptr<Loaded> LoadAndAnalyze(const char* cmd, const AnalyzeOptions& o,
                                       Platform& platform);

// --db, --experiment, --target-qps, --baseline, --reporter, --with.
void AddAnalysisInputOptions(CLI::App* sub, AnalyzeOptions* o);

}  // namespace ream::cli
