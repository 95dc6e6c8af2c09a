// A batch subject's findings (experiment/batch_point.h stores its points): per
// scenario × partition and copies, run time and throughput with intervals over the
// repetitions; the slowdown each partition knob causes against the unlimited partition; a
// sensitivity verdict per resource; and a batch category from black-box metrics, each rule
// printed with its threshold and the measured value. Contention is judged by CPU time per run:
// wall time on a shared CPU mixes in the time a copy waited for it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/data.h"

namespace ream::analysis {

// The category's thresholds (documented constants; the classifier prints each with its value).
// Copy contention: CPU time per run at the most copies over one copy, in the unlimited partition.
inline constexpr double kBatchMemoryContention = 1.20;  // ≥ 20 % more CPU per run: memory-bound
inline constexpr double kBatchCacheContention = 1.05;   // 5–20 %: cache-sensitive; below: compute
// Memory bandwidth per CPU-second of the copies, where measurable.
inline constexpr double kBatchMemBwPerCpuSecond = 2e9;  // ≥ 2 GB per CPU-second: memory-bound
// Disk-bound: many bytes of disk I/O per run while the copies wait for it (low CPU share).
inline constexpr double kBatchDiskBytesPerRun = 32.0 * 1024 * 1024;  // ≥ 32 MiB per run
inline constexpr double kBatchDiskMaxCpuShare = 0.7;  // CPU time / wall time of a run ≤ 70 %
// A knob whose slowdown exceeds this fraction (its interval's low end) matters. The same
// threshold judges the slowdown beside a calibrated source of interference on other CPUs: beside
// `mem_bw` at full intensity it makes the program memory-bound, beside `llc` cache-sensitive, and
// below it (the interval's high end) beside both, compute-bound.
inline constexpr double kBatchSensitivity = 0.10;

// A mean over repetitions with its interval (Student t), or why there is none.
struct BatchFigure {
  std::optional<double> mean, low, high;
  int n = 0;
  std::string unavailable;  // why no mean, or (with a mean) why no interval
  nlohmann::json ToJson() const;
};

struct BatchLevel {
  double copies = 0;
  int repetitions = 0, failed = 0;
  std::vector<std::string> failures;
  BatchFigure run_time_s, runs_per_min, cpu_s_per_run;
  std::map<int, double> run_time_by_repetition;  // each repetition's mean run time
  Metric memory_peak_bytes, disk_bytes_per_run, membw_bps;
};

struct BatchGroup {
  std::string key, scenario;
  Partition partition;
  std::vector<BatchLevel> levels;  // ascending copies
  // A shared run's co-runner set ("" alone): the source when it is one of ream's calibrated
  // sources of interference, and whether its CPUs are apart from the copies' (then it shares
  // only what the cores share — the LLC, the memory bus — not CPU time).
  std::string corunner_set, pressure;
  double intensity = 0;
  bool apart = false;
  std::string placement;  // "co-runner on CPU 1, the copies on CPU 0"
};

// One limited partition against the unlimited one of its scenario at a number of copies.
struct BatchSlowdown {
  std::string group, resource;  // resource "" when the partition limits several
  double copies = 0;
  BatchFigure run_time, cpu_time, throughput;  // ratios: limited / unlimited (throughput: unlimited / limited)
};

struct BatchSensitivity {
  std::string resource;
  std::string verdict;   // "sensitive", "insensitive", "inconclusive", "unavailable"
  std::string judged_by;  // "run time" or "CPU time per run"
  std::optional<double> worst;  // the largest slowdown measured
  std::string evidence;
};

struct BatchCategory {
  std::string name;  // "compute-bound", "cache-sensitive", "memory-bound", "disk-bound"; "" unavailable
  std::vector<std::string> evidence;  // each rule: value against threshold
  std::string unavailable;            // why no category
  // The deciding ratio's interval reaches across the threshold that decided it: the name is
  // the point estimate's, and more repetitions (or a quieter machine) would settle it.
  bool tentative = false;
};

struct BatchAnalysis {
  std::string program;
  double confidence = 0.95;
  std::vector<BatchGroup> groups;
  std::vector<BatchSlowdown> slowdowns;
  std::vector<BatchSensitivity> sensitivity;
  BatchCategory category;
  nlohmann::json ToJson() const;
};

// A mean and its interval at `confidence` from the values (one: no interval, said).
BatchFigure MeanWithInterval(const std::vector<double>& values, double confidence);
// a / b with the interval from the ends of both (conservative); unavailable when either is.
BatchFigure RatioOf(const BatchFigure& a, const BatchFigure& b);

BatchAnalysis AnalyzeBatch(const ExperimentData& d, double confidence);

}  // namespace ream::analysis
