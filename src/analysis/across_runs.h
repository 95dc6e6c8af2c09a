// Several runs of one spec analysed together (`ream analyze --with`): their runs pooled, so every
// interval is across the repetitions of all of them, and each run's own figures beside the
// pooled ones, so the spread from one run to the next shows where one run's interval would
// understate it (the hour moves a capacity more than its sampling does).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/bounded.h"
#include "analysis/data.h"
#include "platform/status.h"

namespace ream::analysis {

struct ExperimentAnalysis;
struct AnalysisOptions;

// One figure as each run gave it and as the pool gives it.
struct AcrossRunsFigure {
  std::string figure;  // "QPS under QoS", "QPS under QoS together"
  std::string group;   // the group's key ("1-ST / unlimited"), with " beside SET" for a set
  std::vector<Bounded> per_run;  // one per experiment, in AcrossRuns::experiments' order
  Bounded pooled;                // the pooled analysis's figure
  // Over the runs whose figure is exact: the lowest, the highest, and (high − low) / median.
  std::optional<double> low, high, spread;
  std::string note;  // which runs gave only a bound or nothing, when some did
};

struct AcrossRuns {
  std::vector<std::string> experiments;  // empty: one run, nothing pooled
  std::vector<AcrossRunsFigure> figures;
};

// `first` with the runs of `more` appended: each run's `source` is its experiment's name and its
// repetition is offset past the previous experiment's, so no two runs share one. Refuses an
// experiment whose spec differs from first's beyond its `name`, naming both and the first line
// that differs, and an experiment given twice.
Result<ExperimentData> PoolRuns(const ExperimentData& first, std::span<const ExperimentData> more);

// With pooled data (`pooled.pooled` names two or more experiments): analyses each experiment's
// runs on their own with `o` and sets `a.across_runs` (a is the pooled analysis). Nothing
// otherwise.
Status CompareAcrossRuns(const ExperimentData& pooled, const AnalysisOptions& o, ExperimentAnalysis& a);

}  // namespace ream::analysis
