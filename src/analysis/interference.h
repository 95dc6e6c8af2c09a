// The subject's sensitivity profile (docs/interference.md): per source of interference
// (a co-runner set of one `pressure = SOURCE, intensity = P` co-runner, as [interference]
// generates them), the subject's QPS under QoS with its interval and its tail at a fixed load
// against the intensity — Bubble-Up's sensitivity curve, with the subject alone as 0 % — the
// intensity it tolerates at that load before it misses QoS (iBench's tolerated intensity,
// interpolated on the tail), and a verdict with its evidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/colocation.h"
#include "analysis/data.h"

namespace ream::analysis {

// The verdict's threshold: sensitive when the subject misses QoS at the fixed load within the
// dial, or when its QPS under QoS at the highest intensity is lower than alone beyond both
// intervals by more than this share.
inline constexpr double kInterferenceCapacityDrop = 0.10;

// One intensity of a source's curve (0: the subject alone).
struct InterferencePoint {
  double intensity = 0;
  std::string set;  // the co-runner set ("llc@50"); "" for the subject alone
  std::optional<double> capacity, low, high;
  bool lower_bound = false;
  std::optional<double> upper_bound;  // the capacity lies below this (even the lowest level missed)
  std::optional<double> tail_us;      // the QoS percentile at the fixed load (valid point)
  std::optional<bool> meets;          // at the fixed load; a certain miss of an invalid point is false
  std::string note;                   // why the tail or the verdict at the load is missing
};

struct InterferenceProfile {
  std::string source;     // "llc"
  std::string group_key;  // "1-ST / unlimited"
  std::optional<double> load;  // the fixed load (axis units)
  std::string load_how;        // how it was chosen
  std::vector<InterferencePoint> points;  // ascending intensity, 0 first
  // The highest intensity that still meets QoS at the load, interpolated on the tail between
  // the last intensity that meets and the first that misses; the whole dial's top when every
  // intensity meets (tolerates_all), the last that met when the next could not be judged
  // (at_least).
  std::optional<double> tolerated;
  bool tolerates_all = false, at_least = false;
  std::string tolerated_note;
  Bounded capacity_ratio_at_max;  // at the highest intensity, together / alone (colocation.h's)
  std::string verdict;   // "sensitive", "insensitive" or "undecided"
  std::string evidence;  // the figures the verdict rests on
};

// The profiles of every source that has single-source sets in `d`'s runs, per scenario ×
// partition of `groups` (AnalyzeColocation's); `lqos` the subject's QoS target alone.
std::vector<InterferenceProfile> AnalyzeInterference(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                                     std::optional<double> lqos);

// The pressure a co-runner set causes (Bubble-Up's pressure score, per source): the intensity of
// each calibrated source that hurts the reporter — the subject, whose sensitivity curve for that
// source was measured in the same run — as much as the set does, read off the curve's tail at
// its fixed load (the inverse of the curve, interpolated linearly).
struct PressureScore {
  std::string source;
  std::optional<double> intensity;  // the score, % of the source's dial
  bool at_least = false;            // the score is a lower bound (beyond the curve, or a miss)
  std::string note;                 // how it was read, or why there is none
  // The same score read on QPS under QoS instead of the tail at the load: the intensity whose
  // capacity share (together / alone) on the reporter's curve equals the set's. A prediction
  // of the capacity reads this one, a prediction of the tail the one above, each falling back
  // on the other where it is missing.
  std::optional<double> capacity_intensity;
  bool capacity_at_least = false;
  std::string capacity_note;
};

struct PressureProfile {
  std::string set;        // the co-runner set ("xz")
  std::string group_key;  // "1-ST / unlimited"
  std::vector<PressureScore> scores;  // one per source curve of the group
};

// For every co-runner set of `groups` that is not a single pressure source, its score against
// each of `curves` of the same scenario × partition. A curve that is not monotone (its tail falls,
// or its capacity rises, from one intensity to the next) is read on its monotone envelope (the
// running maximum of the tail, the running minimum of the capacity share), and the score's note
// says so: the lowest intensity that hurt the reporter as much.
std::vector<PressureProfile> AnalyzePressure(const ExperimentData& d, const std::vector<ColocationGroup>& groups,
                                             const std::vector<InterferenceProfile>& curves, std::optional<double> lqos);

// Bubble-Up's prediction: the subject beside a co-runner set that a *reporter* experiment
// scored (its PressureProfile, with another workload as the reporter), read off the subject's own
// sensitivity curves at the set's score per source; the most damaging source's reading is the
// prediction. Where the subject was also measured beside a set of that name, the measurement
// stands beside it with the difference.
struct InterferencePrediction {
  std::string set;        // the co-runner set, as the reporter's experiment named it
  std::string group_key;  // the subject's scenario × partition
  std::string source;     // the source whose curve gave the prediction
  std::optional<double> score;  // the set's pressure on that source (reporter's), % — by the tail
  bool score_at_least = false;
  std::optional<double> capacity_score;  // — by QPS under QoS (what the capacity is read at)
  bool capacity_score_at_least = false;
  std::optional<double> load;   // the subject's curve load
  // Read off the curve at the score: at least the reading when the score is only a lower bound;
  // withheld, with why, when there is no score.
  Bounded predicted_tail_us;
  // nullopt when it cannot be said: a reading that meets QoS at a score that is only a lower
  // bound says nothing of the true score (note says so); a miss there is certain.
  std::optional<bool> predicted_meets;
  // together / alone, read off the curve: a bound when a capacity it comes from is one, or when
  // the score is (at most the reading: a higher score leaves a smaller share).
  Bounded predicted_capacity_ratio;
  std::optional<double> measured_tail_us;
  std::optional<bool> measured_meets;
  Bounded measured_capacity_ratio;  // colocation.h's capacity_ratio beside the set
  // (predicted − measured) capacity ratio, in percentage points of the capacity alone; judged
  // only where the measured share is exact (withheld otherwise), a bound where the prediction is.
  Bounded capacity_error_pp;
  std::string note;  // how it was read, or why a figure is missing
};

// How the predictions did where the pairs were measured: the mean absolute error of the
// predicted capacity share over the pairs where both shares are exact, beside the error of the
// naive guess (every pair at the mean measured share of those same pairs); the same for the
// tail at the curve's load (Bubble-Up's own prediction: the QoS figure at a load), as a relative
// error over the pairs where both tails are figures, beside guessing their mean measured tail;
// and how often the prediction said safe or unsafe at QoS as the measurement did.
struct PredictionCheck {
  int measured = 0;  // predictions with a measurement beside them
  std::vector<std::string> judged;     // the sets whose error is judged
  std::vector<std::string> left_out;   // "set: why" for every measured pair not judged
  std::optional<double> mean_abs_error_pp;
  std::optional<double> naive_share;             // the mean measured share over the judged pairs
  std::optional<double> naive_mean_abs_error_pp;  // guessing naive_share for each of them
  int safe_judged = 0, safe_agree = 0;  // pairs with both verdicts, and those that agree
  std::string note;  // why there is no error, when there is none
  // The tail at the curve's load: |predicted − measured| / measured, %, averaged.
  std::vector<std::string> tail_judged;  // the sets with both tails (the prediction not a bound)
  std::optional<double> tail_mean_abs_error_pct;
  std::optional<double> naive_tail_us;                   // the mean measured tail over them
  std::optional<double> naive_tail_mean_abs_error_pct;  // guessing naive_tail_us for each
  std::string tail_note;  // why there is no tail error, when there is none
};

PredictionCheck CheckPredictions(const std::vector<InterferencePrediction>& predictions);

std::vector<InterferencePrediction> PredictInterference(const std::vector<InterferenceProfile>& subject_curves,
                                                        const std::vector<ColocationGroup>& subject_measured,
                                                        const std::vector<PressureProfile>& reporter_scores,
                                                        std::optional<double> lqos);

// The co-location matrix: subjects × co-runner sets on one scenario × partition,
// each cell the subject's capacity beside the set (together / alone) and whether it meets QoS at
// its curve's load, predicted (Bubble-Up, from a reporter's scores) and measured where the pair
// ran; and each workload's vector over the sources — the intensity a subject tolerates, the
// intensity a co-runner set causes — for a small heat map.
struct MatrixCell {
  std::string subject, set;
  std::optional<double> load;  // the subject's curve load, where meets is judged
  Bounded predicted_ratio, measured_ratio;  // InterferencePrediction's and colocation.h's
  std::optional<bool> predicted_meets, measured_meets;
  std::string note;  // why a side is missing
};

struct HeatRow {
  std::string workload;  // a subject (experiment) or a co-runner set
  std::string role;      // "tolerates" (a subject's tolerated intensity) or "causes" (a set's score)
  std::string by;        // for "causes": the experiment whose subject reported it
  std::vector<std::optional<double>> values;  // per ColocationMatrix::sources, % of the dial
  std::vector<bool> at_least;                 // the value is a lower bound
};

struct ColocationMatrix {
  std::string group_key;  // the scenario × partition shown
  std::vector<std::string> subjects, sets, sources;
  std::vector<MatrixCell> cells;  // subjects × sets, row-major
  std::vector<HeatRow> heat;
  std::string note;  // what the matrix shows and what it leaves out
};

// One subject's view of the matrix, as ExperimentAnalysis keeps it.
struct MatrixSubject {
  std::string name;
  const std::vector<InterferenceProfile>* curves = nullptr;
  const std::vector<ColocationGroup>* measured = nullptr;
  const std::vector<PressureProfile>* pressure = nullptr;        // its own scores of its sets
  const std::vector<InterferencePrediction>* predicted = nullptr;  // beside the reporter's sets
};

// The matrix of `subjects` (the first is the page's: its scenario × partition is the one shown)
// and, when given, the reporter (whose cells are measured only: its scores were read off those
// measurements). Empty (no sets) without co-runner sets.
ColocationMatrix BuildColocationMatrix(const std::vector<MatrixSubject>& subjects, const MatrixSubject* reporter);

}  // namespace ream::analysis
