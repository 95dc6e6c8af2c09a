// Analyze and AnalyzeSweeps run the table of steps (steps.h) of their scope in order; each
// step's Run function below only dispatches to the step's own file (merge, qos, capacity,
// model, classify, sensitivity, recommend, colocation, interference, batch).
#include "analysis/analysis.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/capacity.h"
#include "analysis/classify.h"
#include "analysis/format.h"
#include "analysis/merge.h"
#include "analysis/model.h"
#include "analysis/predicted_sensitivity.h"
#include "analysis/qos.h"
#include "analysis/recommend.h"
#include "analysis/sensitivity.h"
#include "analysis/step_functions.h"

namespace ream::analysis {

std::string Partition::Label() const {
  if (!label.empty()) return label;
  if (unlimited()) return "unlimited";
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ",") + part; };
  // In the builtin table's resource order; a resource it does not know follows, by name.
  const KnobTable& knobs = BuiltinKnobs();
  for (const LimitedResource& r : knobs.resources()) {
    auto v = Limit(r.name);
    if (!v) continue;
    add(r.label_prefix + (r.integral ? std::to_string(static_cast<int64_t>(*v)) : Fmt(*v * r.label_scale)) +
        r.label_suffix);
  }
  for (const auto& [name, v] : limits) {
    if (!knobs.FindResource(name)) add(name + "=" + Fmt(v));
  }
  for (const auto& [k, v] : other) add(k + "=" + v);
  return s;
}

std::string GroupKey(const std::string& scenario, const Partition& p) {
  return scenario + " / " + p.Label();
}

const GroupAnalysis* ExperimentAnalysis::Find(const std::string& key) const {
  for (const auto& g : groups) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

namespace {

// Runs the steps of one scope, in the table's order.
Status RunSteps(StepScope scope, StepContext& ctx, ExperimentAnalysis& a) {
  for (const AnalysisStep& step : AnalysisSteps()) {
    if (step.scope == scope) REAM_RETURN_IF_ERROR(step.run(ctx, a));
  }
  return Status::Ok();
}

// The options a reporter or another subject is analyzed with: their own curves, no reporter of
// their own, no recommendation.
AnalysisOptions OtherSubjectOptions(const AnalysisOptions& o) {
  AnalysisOptions ro = o;
  ro.reporter = nullptr;
  ro.baseline = nullptr;
  ro.target_qps.reset();
  return ro;
}

// A sessions sweep measured by session load is judged by its chunks' deadline misses.
bool BySessions(const ExperimentData& d, const ExperimentAnalysis& a) {
  return d.load_axis == LoadAxis::kSessions && HasSessionFigures(a.groups);
}

const KnobTable& Knobs(const AnalysisOptions& o) { return o.knobs ? *o.knobs : BuiltinKnobs(); }

}  // namespace

namespace {

// Analyze without the steps over pooled runs.
Result<ExperimentAnalysis> AnalyzeOne(const ExperimentData& d, const AnalysisOptions& o) {
  if (d.load_axis == LoadAxis::kCopies) {
    // A batch subject: run times and throughput, not QoS (analysis/batch.h).
    if (d.runs.empty()) return InvalidArgument("experiment '" + d.name + "' has no runs to analyze");
    ExperimentAnalysis a;
    a.experiment = d.name;
    a.workload = d.workload;
    a.confidence = o.confidence;
    a.load_axis = d.load_axis;
    a.skipped_scenarios = d.skipped_scenarios;
    StepContext ctx{d, o};
    REAM_RETURN_IF_ERROR(RunSteps(StepScope::kBatch, ctx, a));
    return a;
  }
  const bool shared = std::any_of(d.runs.begin(), d.runs.end(), [](const RunData& r) { return !r.corunner_set.empty(); });
  if (!shared) return AnalyzeSweeps(d, o);
  // The subject's own findings come from its runs alone; each co-runner set is then compared
  // with them (colocation.cc). Without alone runs ([colocation] alone = false) the first set's
  // runs stand in, and the note says so.
  ExperimentData alone = d;
  alone.runs.clear();
  for (const auto& r : d.runs) {
    if (r.corunner_set.empty()) alone.runs.push_back(r);
  }
  std::string note;
  if (alone.runs.empty()) {
    const std::string first = d.runs.front().corunner_set;
    for (const auto& r : d.runs) {
      if (r.corunner_set == first) alone.runs.push_back(r);
    }
    note = "the subject was not measured alone ([colocation] alone = false): its findings are those beside " + first +
           ", and no set is compared with it";
  }
  REAM_ASSIGN_OR_RETURN(ExperimentAnalysis a, AnalyzeSweeps(alone, o));
  if (note.empty()) {
    StepContext ctx{d, o};
    REAM_RETURN_IF_ERROR(RunSteps(StepScope::kShared, ctx, a));
    a.colocation_note = "each set's runs alternated with the subject's alone runs in every repetition; the QoS target "
                        "is the alone one";
  } else {
    a.colocation_note = note;
  }
  return a;
}

}  // namespace

Result<ExperimentAnalysis> Analyze(const ExperimentData& d, const AnalysisOptions& o) {
  auto one = AnalyzeOne(d, o);
  const bool windows =
      std::any_of(d.runs.begin(), d.runs.end(), [](const RunData& r) { return !r.windows.empty(); });
  // A run under a schedule is judged window by window: a point that was not valid as a whole (the
  // generator late over a stretch of it) leaves no point-level finding, but its valid windows
  // still compare the modes, and the warning says why the rest is missing.
  if (!one.ok() && !(windows && one.status().code() == StatusCode::kInvalidArgument)) return one.status();
  ExperimentAnalysis a;
  if (one.ok()) {
    a = std::move(one).value();
  } else {
    a.experiment = d.name;
    a.workload = d.workload;
    a.confidence = o.confidence;
    a.load_axis = d.load_axis;
    a.skipped_scenarios = d.skipped_scenarios;
    a.warnings.push_back("no finding from the points: " + one.status().message() +
                         "; the windows are compared on their own");
  }
  StepContext ctx{d, o};
  REAM_RETURN_IF_ERROR(RunSteps(StepScope::kRuns, ctx, a));
  return a;
}

Result<ExperimentAnalysis> AnalyzeSweeps(const ExperimentData& d, const AnalysisOptions& o) {
  if (d.runs.empty()) {
    return InvalidArgument("experiment '" + d.name + "' has no runs to analyze");
  }
  if (d.qos.percentile <= 0 || d.qos.percentile >= 100) {
    return InvalidArgument("experiment '" + d.name + "': QoS percentile " +
                           Fmt(d.qos.percentile) + " is outside (0, 100)");
  }
  ExperimentAnalysis a;
  a.experiment = d.name;
  a.workload = d.workload;
  a.percentile = d.qos.percentile;
  a.confidence = o.confidence;
  a.load_axis = d.load_axis;
  a.skipped_scenarios = d.skipped_scenarios;
  StepContext ctx{d, o};
  REAM_RETURN_IF_ERROR(RunSteps(StepScope::kSweeps, ctx, a));
  for (const auto& g : a.groups) {
    if (g.failed) a.warnings.push_back(g.key + " failed: " + g.failure);
  }
  return a;
}

namespace steps {

// Groups runs by scenario × partition; repetitions merge point by point.
Status RunGroups(StepContext& ctx, ExperimentAnalysis& a) {
  const ExperimentData& d = ctx.data;
  const double pct = d.qos.percentile;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunData*>> by_key;
  for (const auto& r : d.runs) {
    std::string key = GroupKey(r.scenario, r.partition);
    if (!by_key.count(key)) order.push_back(key);
    by_key[key].push_back(&r);
  }
  int total_points = 0, valid_points = 0;
  std::map<std::string, int> reasons;
  for (const auto& key : order) {
    const auto& runs = by_key[key];
    GroupAnalysis g;
    g.key = key;
    g.scenario = runs[0]->scenario;
    g.threads = runs[0]->threads;
    g.physical_cores = runs[0]->physical_cores;
    g.partition = runs[0]->partition;
    g.repetitions = static_cast<int>(runs.size());
    g.failed = std::all_of(runs.begin(), runs.end(), [](const RunData* r) { return r->failed; });
    if (g.failed) g.failure = runs[0]->failure;
    std::vector<double> loads;
    for (const RunData* r : runs) {
      for (const auto& p : r->points) {
        if (std::none_of(loads.begin(), loads.end(),
                         [&](double l) { return SameLoad(l, p.target_load); })) {
          loads.push_back(p.target_load);
        }
      }
    }
    std::sort(loads.begin(), loads.end());
    for (double load : loads) {
      std::vector<const PointData*> reps;
      for (const RunData* r : runs) {
        for (const PointData* p : DecidingPoints(*r, load)) reps.push_back(p);
      }
      PointAnalysis pa = MergePoints(reps, *runs[0], pct, ctx.options.confidence);
      ++total_points;
      if (pa.valid) {
        ++valid_points;
        ++g.valid_points;
      } else {
        ++g.invalid_points;
        for (const auto& reason : pa.reasons) ++reasons[reason];
      }
      g.points.push_back(std::move(pa));
    }
    for (const RunData* r : runs) {
      if (g.load_range_note.empty()) g.load_range_note = r->load_range_note;
    }
    if (!g.points.empty()) {
      g.min_qps = g.points.front().target_load;
      g.max_qps = g.points.back().target_load;
      g.min_clients = g.max_clients = g.points.front().clients;
      for (const auto& p : g.points) {
        g.min_clients = std::min(g.min_clients, p.clients);
        g.max_clients = std::max(g.max_clients, p.clients);
      }
    }
    a.groups.push_back(std::move(g));
  }
  if (valid_points == 0) {
    // The most frequent reasons first, a few of them: enough to say what went wrong.
    std::vector<std::pair<int, std::string>> ranked;
    for (const auto& [r, n] : reasons) ranked.push_back({n, r});
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string why;
    constexpr size_t kShown = 4;
    for (size_t i = 0; i < ranked.size() && i < kShown; ++i) {
      why += (why.empty() ? "" : "; ") + ranked[i].second + " (" +
             std::to_string(ranked[i].first) + " point(s))";
    }
    if (ranked.size() > kShown) {
      why += "; and " + std::to_string(ranked.size() - kShown) + " other reason(s)";
    }
    std::string failures;
    for (const auto& r : d.runs) {
      if (r.failed && failures.find(r.failure) == std::string::npos) {
        failures += (failures.empty() ? "" : "; ") + r.scenario + ": " + r.failure;
      }
    }
    return InvalidArgument("experiment '" + d.name + "' has no valid point (" +
                           std::to_string(total_points) + " point(s)" +
                           (why.empty() ? "" : ", invalid because: " + why) +
                           (failures.empty() ? "" : "; failed runs: " + failures) +
                           "); nothing to analyze — rerun with lower loads or more generator "
                           "threads");
  }
  return Status::Ok();
}

Status RunQos(StepContext& ctx, ExperimentAnalysis& a) {
  a.qos = ComputeQos(ctx.data, a.groups);
  if (!a.qos.target_us) a.warnings.push_back("no QoS target: " + a.qos.unavailable);
  return Status::Ok();
}

Status RunCapacity(StepContext& ctx, ExperimentAnalysis& a) {
  const bool sessions = BySessions(ctx.data, a);
  for (auto& g : a.groups) {
    for (auto& p : g.points) {
      if (sessions) {
        if (p.valid && p.session) p.meets_qos = p.session->deadline_miss_ratio <= kSessionMaxDeadlineMiss;
      } else if (a.qos.target_us && p.valid) {
        p.meets_qos = p.tail_us <= *a.qos.target_us;
      }
    }
    g.capacity = sessions ? ComputeSessionCapacity(g.points)
                          : ComputeCapacity(g.points, a.qos.target_us, ctx.data.load_axis);
    QpsAtUtilization(g.points, 0.20, &g.qps_at_20, &g.qps_at_20_note);
    QpsAtUtilization(g.points, 0.50, &g.qps_at_50, &g.qps_at_50_note);
    Saturation(g, ctx.data.load_axis);
  }
  return Status::Ok();
}

Status RunModel(StepContext& ctx, ExperimentAnalysis& a) {
  const bool sessions = BySessions(ctx.data, a);
  for (auto& g : a.groups) {
    if (sessions) {
      g.model_unavailable = "the queueing model is one of request rates; a sessions sweep's levels are session counts";
    } else {
      FitModel(g, ctx.data, ctx.options, ctx.data.qos.percentile);
    }
  }
  return Status::Ok();
}

Status RunScaling(StepContext& ctx, ExperimentAnalysis& a) {
  const ExperimentData& d = ctx.data;
  // The scaling ratios compare runs that limit nothing the scenario has: no knob at all, or
  // only a CPU quota of at least the scenario's CPUs (cpu_quota = 100 % of a 1-ST run is no
  // limit). A run with no knob is preferred where both exist.
  auto no_limit = [](const GroupAnalysis& g) {
    if (g.partition.unlimited()) return true;
    auto quota = g.partition.Limit("cpu_quota");
    return quota && g.partition.limits.size() == 1 && g.partition.other.empty() && g.threads > 0 &&
           *quota >= g.threads - 1e-9;
  };
  auto unlimited = [&](const std::string& sc) -> const GroupAnalysis* {
    const GroupAnalysis* found = nullptr;
    for (const auto& g : a.groups) {
      if (g.scenario != sc || !no_limit(g)) continue;
      if (g.partition.unlimited()) return &g;
      if (!found) found = &g;
    }
    return found;
  };
  const GroupAnalysis* st1 = unlimited("1-ST");
  const GroupAnalysis* st2 = unlimited("2-ST");
  const GroupAnalysis* smt2 = unlimited("2-SMT");
  if (st1 && st1->failed) st1 = nullptr;
  auto skipped = [&](const std::string& sc) -> std::string {
    auto it = d.skipped_scenarios.find(sc);
    return it == d.skipped_scenarios.end() ? "" : it->second;
  };
  const std::string skip1 = skipped("1-ST"), skip2 = skipped("2-ST"), skip_smt = skipped("2-SMT");
  a.scaling.capacity_2st = MakeRatio(st2, st1, "2-ST", nullptr, true, skip2, skip1);
  a.scaling.capacity_2smt = MakeRatio(smt2, st1, "2-SMT", nullptr, true, skip_smt, skip1);
  a.scaling.qps20_2st = MakeRatio(st2, st1, "2-ST", &GroupAnalysis::qps_at_20, false, skip2, skip1);
  a.scaling.qps20_2smt = MakeRatio(smt2, st1, "2-SMT", &GroupAnalysis::qps_at_20, false, skip_smt, skip1);
  a.scaling.qps50_2st = MakeRatio(st2, st1, "2-ST", &GroupAnalysis::qps_at_50, false, skip2, skip1);
  a.scaling.qps50_2smt = MakeRatio(smt2, st1, "2-SMT", &GroupAnalysis::qps_at_50, false, skip_smt, skip1);
  return Status::Ok();
}

Status RunCategory(StepContext& ctx, ExperimentAnalysis& a) {
  a.category = Classify(ReferenceGroup(a.groups), a.groups, ctx.data.load_axis);
  return Status::Ok();
}

Status RunSensitivity(StepContext& ctx, ExperimentAnalysis& a) {
  a.sensitivity = ComputeSensitivity(a.groups, Knobs(ctx.options));
  return Status::Ok();
}

Status RunPredictedSensitivity(StepContext& ctx, ExperimentAnalysis& a) {
  a.predicted_sensitivity = PredictSensitivity(a.groups, Knobs(ctx.options));
  return Status::Ok();
}

Status RunRecommendation(StepContext& ctx, ExperimentAnalysis& a) {
  if (ctx.options.target_qps) a.recommendation = Recommend(a.groups, *ctx.options.target_qps, Knobs(ctx.options));
  return Status::Ok();
}

Status RunColocation(StepContext& ctx, ExperimentAnalysis& a) {
  a.colocation = AnalyzeColocation(ctx.data, a, ctx.options);
  return Status::Ok();
}

Status RunInterference(StepContext& ctx, ExperimentAnalysis& a) {
  a.interference = AnalyzeInterference(ctx.data, a.colocation, a.qos.target_us);
  return Status::Ok();
}

Status RunPressure(StepContext& ctx, ExperimentAnalysis& a) {
  a.pressure = AnalyzePressure(ctx.data, a.colocation, a.interference, a.qos.target_us);
  return Status::Ok();
}

// With a reporter experiment: its pressure scores of its sets, read on this subject's curves.
Status RunPredictions(StepContext& ctx, ExperimentAnalysis& a) {
  const AnalysisOptions& o = ctx.options;
  if (!o.reporter) return Status::Ok();
  a.reporter = o.reporter->name;
  auto r = Analyze(*o.reporter, OtherSubjectOptions(o));
  if (!r.ok()) {
    a.reporter_note = "the reporter could not be analyzed: " + r.status().message();
    return Status::Ok();
  }
  if (r->pressure.empty()) {
    a.reporter_note = "the reporter has no pressure scores (it needs [interference] and [[corunner]] sets of its "
                      "own)";
  } else if (a.interference.empty()) {
    a.reporter_note = "this subject has no sensitivity curve ([interference]) to read the scores on";
  } else {
    a.predictions = PredictInterference(a.interference, a.colocation, r->pressure, a.qos.target_us);
    a.prediction_check = CheckPredictions(a.predictions);
  }
  ctx.reporter = std::move(r).value();
  return Status::Ok();
}

Status RunMatrix(StepContext& ctx, ExperimentAnalysis& a) {
  const AnalysisOptions& o = ctx.options;
  if (!o.reporter) {
    a.matrix = BuildColocationMatrix({{a.experiment, &a.interference, &a.colocation, &a.pressure, nullptr}}, nullptr);
    return Status::Ok();
  }
  if (!ctx.reporter) return Status::Ok();  // reporter_note says why
  const ExperimentAnalysis& r = *ctx.reporter;
  // Every other subject of the database, predicted beside the reporter's sets from its own
  // curves (and measured beside them where it ran them).
  AnalysisOptions ro = OtherSubjectOptions(o);
  ro.subjects.clear();
  std::vector<ExperimentAnalysis> others;
  for (const ExperimentData* od : o.subjects) {
    if (od == &ctx.data || od->name == ctx.data.name || od->name == o.reporter->name) continue;
    auto oa = Analyze(*od, ro);
    if (!oa.ok() || oa->interference.empty()) continue;
    oa->predictions = PredictInterference(oa->interference, oa->colocation, r.pressure, oa->qos.target_us);
    others.push_back(std::move(oa).value());
  }
  std::vector<MatrixSubject> rows{{a.experiment, &a.interference, &a.colocation, &a.pressure, &a.predictions}};
  for (const auto& oa : others) {
    rows.push_back({oa.experiment, &oa.interference, &oa.colocation, &oa.pressure, &oa.predictions});
  }
  MatrixSubject rs{r.experiment, &r.interference, &r.colocation, &r.pressure, nullptr};
  a.matrix = BuildColocationMatrix(rows, &rs);
  return Status::Ok();
}

Status RunBatch(StepContext& ctx, ExperimentAnalysis& a) {
  a.batch = AnalyzeBatch(ctx.data, ctx.options.confidence);
  for (const auto& g : a.batch->groups) {
    for (const auto& l : g.levels) {
      for (const auto& f : l.failures) a.warnings.push_back(g.key + " at " + Fmt(l.copies) + " copies failed: " + f);
    }
  }
  return Status::Ok();
}

Status RunAcrossRuns(StepContext& ctx, ExperimentAnalysis& a) { return CompareAcrossRuns(ctx.data, ctx.options, a); }

// Each run that stored windows is one run of its mode: alone, or its co-runner set's; managed
// where the manager left an allocation in its windows. A neighbour's throughput alone is its
// CPU share over the window the co-runners ran alone.
Status RunManager(StepContext& ctx, ExperimentAnalysis& a) {
  std::vector<ModeRun> runs;
  for (const RunData& r : ctx.data.runs) {
    if (r.windows.empty()) continue;
    ModeRun m;
    m.mode = r.corunner_set.empty() ? "alone" : r.corunner_set;
    m.managed = std::any_of(r.windows.begin(), r.windows.end(), [](const auto& w) { return !w.allocation.empty(); });
    m.windows = r.windows;
    for (const auto& c : r.corunners.corunners) {
      if (c.alone && c.alone->cpu_share) m.neighbour_alone[c.name] = *c.alone->cpu_share;
    }
    runs.push_back(std::move(m));
  }
  if (!runs.empty()) a.manager = CompareModes(runs, ctx.data.manager_peak_qps);
  return Status::Ok();
}

}  // namespace steps

}  // namespace ream::analysis
