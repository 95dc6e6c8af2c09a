#include "analysis/batch.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/format.h"
#include "analysis/stats.h"
#include "platform/platform.h"
#include "pressure/pressure.h"

namespace ream::analysis {
namespace {

// Student t's two-sided quantile for `df` degrees of freedom at 90, 95 or 99 %; the normal
// quantile beyond the table (df > 10) or at another confidence.
double BatchTQuantile(int df, double confidence) {
  static const double k90[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812};
  static const double k95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
  static const double k99[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169};
  if (df >= 1 && df <= 10) {
    if (std::fabs(confidence - 0.90) < 1e-9) return k90[df - 1];
    if (std::fabs(confidence - 0.95) < 1e-9) return k95[df - 1];
    if (std::fabs(confidence - 0.99) < 1e-9) return k99[df - 1];
  }
  return NormalQuantileTwoSided(confidence);
}

std::optional<double> BatchNum(const nlohmann::json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

std::string BatchWhy(const nlohmann::json& j, const char* key, const std::string& otherwise) {
  if (j.is_object() && j.contains("unavailable") && j["unavailable"].contains(key) &&
      j["unavailable"][key].is_string()) {
    return j["unavailable"][key].get<std::string>();
  }
  return otherwise;
}

std::string BatchBytes(double b) {
  if (b >= 1e9) return Fmt(b / 1e9) + " GB";
  if (b >= 1e6) return Fmt(b / 1e6) + " MB";
  if (b >= 1e3) return Fmt(b / 1e3) + " kB";
  return Fmt(b) + " B";
}

// The resource a knob's slowdown is judged by: a CPU quota or a disk limit stretches the wall
// time (the copies wait for the CPU or the device); memory, cache and bandwidth limits show in
// the CPU time each run needs (stalls on memory are CPU time).
bool BatchJudgedByRunTime(const std::string& resource) {
  return resource == "cpu_quota" || resource.rfind("disk", 0) == 0;
}

}  // namespace

nlohmann::json BatchFigure::ToJson() const {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json j = {{"mean", opt(mean)}, {"low", opt(low)}, {"high", opt(high)}, {"n", n}};
  if (!unavailable.empty()) j["unavailable"] = unavailable;
  return j;
}

BatchFigure MeanWithInterval(const std::vector<double>& values, double confidence) {
  BatchFigure f;
  f.n = static_cast<int>(values.size());
  if (values.empty()) {
    f.unavailable = "no measurement";
    return f;
  }
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  f.mean = mean;
  if (values.size() < 2) {
    f.unavailable = "one repetition: no interval (set repetitions ≥ 2)";
    return f;
  }
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(values.size() - 1));
  const double half = BatchTQuantile(static_cast<int>(values.size()) - 1, confidence) * sd /
                      std::sqrt(static_cast<double>(values.size()));
  f.low = mean - half;
  f.high = mean + half;
  return f;
}

BatchFigure RatioOf(const BatchFigure& a, const BatchFigure& b) {
  BatchFigure r;
  r.n = std::min(a.n, b.n);
  if (!a.mean || !b.mean || !(*b.mean > 0)) {
    r.unavailable = !a.mean ? a.unavailable : !b.mean ? b.unavailable : "the reference is zero";
    return r;
  }
  r.mean = *a.mean / *b.mean;
  if (a.low && a.high && b.low && b.high && *b.low > 0) {
    r.low = *a.low / *b.high;
    r.high = *a.high / *b.low;
  } else if (!a.low || !b.low) {
    r.unavailable = "no interval: " + (a.low ? b.unavailable : a.unavailable);
  } else {
    r.unavailable = "no interval: the reference's interval reaches zero (too few repetitions for its spread)";
  }
  return r;
}

namespace {

// "0,2-3" -> {0, 2, 3}; empty when it does not parse.
std::vector<int> CpuList(const std::string& text) {
  auto list = ParseCpuList(text);
  return list.ok() ? *list : std::vector<int>{};
}

// One slowdown's verdict against 1 + kBatchSensitivity, folded into `s`: the strongest over the
// levels (sensitive anywhere is sensitive). Without an interval the point estimate decides when
// `decide_without_interval`, else it is inconclusive.
void FoldVerdict(const BatchFigure& judged, bool decide_without_interval, BatchSensitivity* s) {
  if (!s->worst || *judged.mean > *s->worst) s->worst = *judged.mean;
  const double limit = 1 + kBatchSensitivity;
  std::string v = "inconclusive";
  if (judged.low && *judged.low > limit) v = "sensitive";
  else if (judged.high && *judged.high < limit) v = "insensitive";
  else if (!judged.low && decide_without_interval) v = *judged.mean > limit ? "sensitive" : "insensitive";
  if (s->verdict.empty() || v == "sensitive" || (v == "inconclusive" && s->verdict == "insensitive")) s->verdict = v;
}

// A shared run's set: the source and intensity when it is one calibrated source, and whether
// every co-runner's CPUs are apart from the copies' (from the first stored point's batch figures).
void DescribeTenants(const RunData& r, BatchGroup* g) {
  const std::vector<CorunnerRecord>& cs = r.corunners.corunners;
  if (cs.size() == 1 && !cs[0].pressure.empty()) {
    g->pressure = cs[0].pressure;
    g->intensity = cs[0].intensity;
  }
  std::string copies = "?";
  for (const auto& p : r.points) {
    if (p.batch.is_object() && p.batch.contains("cpus") && p.batch["cpus"].is_string()) {
      copies = p.batch["cpus"].get<std::string>();
      break;
    }
  }
  const std::vector<int> subject = CpuList(copies);
  std::string theirs;
  bool apart = !subject.empty() && !cs.empty();
  for (const CorunnerRecord& c : cs) {
    const std::string& list = c.cpu_list;
    theirs += (theirs.empty() ? "" : "; ") + (c.name.empty() ? std::string("?") : c.name) + " on CPU " + list;
    const std::vector<int> mine = CpuList(list);
    if (mine.empty()) apart = false;
    for (int cpu : mine) {
      if (std::find(subject.begin(), subject.end(), cpu) != subject.end()) apart = false;
    }
  }
  g->apart = apart;
  g->placement = theirs + ", the copies on CPU " + copies +
                 (apart ? " (apart: only the shared cache and memory bus)" : " (sharing CPU time)");
}

// The level of `g` at `copies`; nullptr when it measured none.
const BatchLevel* LevelAt(const BatchGroup& g, double copies) {
  for (const auto& l : g.levels) {
    if (l.copies == copies) return &l;
  }
  return nullptr;
}

// `l` of group `g` against `base`, the same number of copies elsewhere: the three ratios.
BatchSlowdown SlowdownOf(const BatchGroup& g, const BatchLevel& l, const BatchLevel& base, const std::string& resource) {
  BatchSlowdown sd;
  sd.group = g.key;
  sd.resource = resource;
  sd.copies = l.copies;
  sd.run_time = RatioOf(l.run_time_s, base.run_time_s);
  sd.cpu_time = RatioOf(l.cpu_s_per_run, base.cpu_s_per_run);
  sd.throughput = RatioOf(base.runs_per_min, l.runs_per_min);
  return sd;
}

// "× 1.2 [1.1, 1.3]", or "× 1.2 (why there is no interval)".
std::string Times(const BatchFigure& f) {
  return "× " + Fmt(*f.mean) + (f.low ? " [" + Fmt(*f.low) + ", " + Fmt(*f.high) + "]" : " (" + f.unavailable + ")");
}

std::string Copies(double n) { return Fmt(n) + " cop" + (n == 1 ? "y" : "ies"); }

}  // namespace

BatchAnalysis AnalyzeBatch(const ExperimentData& d, double confidence) {
  BatchAnalysis a;
  a.confidence = confidence;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunData*>> by_key;
  for (const auto& r : d.runs) {
    const std::string key = r.scenario + " / " + r.partition.Label() + (r.corunner_set.empty() ? "" : " with " + r.corunner_set);
    if (!by_key.count(key)) order.push_back(key);
    by_key[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& runs = by_key[key];
    BatchGroup g;
    g.key = key;
    g.scenario = runs[0]->scenario;
    g.partition = runs[0]->partition;
    g.corunner_set = runs[0]->corunner_set;
    if (!g.corunner_set.empty()) DescribeTenants(*runs[0], &g);
    std::map<double, std::vector<const PointData*>> by_copies;
    std::map<const PointData*, int> repetition_of;
    for (const RunData* r : runs) {
      for (const auto& p : r->points) {
        by_copies[p.target_load].push_back(&p);
        repetition_of[&p] = r->repetition;
      }
    }
    for (const auto& [copies, points] : by_copies) {
      BatchLevel l;
      l.copies = copies;
      std::vector<double> rt, rpm, cpu, peak, disk, membw;
      std::string rt_why, cpu_why, peak_why = "not measured", disk_why, membw_why;
      for (const PointData* p : points) {
        const nlohmann::json& b = p->batch;
        if (p->failed || !b.is_object()) {
          ++l.failed;
          for (const auto& r : p->invalid_reasons) {
            if (std::find(l.failures.begin(), l.failures.end(), r) == l.failures.end()) l.failures.push_back(r);
          }
          continue;
        }
        ++l.repetitions;
        if (a.program.empty() && b.contains("program")) a.program = b["program"].get<std::string>();
        if (auto v = BatchNum(b, "runs_per_min")) rpm.push_back(*v);
        if (auto v = BatchNum(b, "run_time_mean_s")) {
          rt.push_back(*v);
          l.run_time_by_repetition[repetition_of[p]] = *v;
        } else {
          rt_why = BatchWhy(b, "run_time_mean_s", "not stored");
        }
        if (auto v = BatchNum(b, "cpu_s_per_run")) cpu.push_back(*v);
        else cpu_why = BatchWhy(b, "cpu_s_per_run", "not stored");
        if (auto v = BatchNum(b, "memory_peak_bytes")) peak.push_back(*v);
        else peak_why = BatchWhy(b, "memory_peak_bytes", "not measured");
        const auto n = BatchNum(b, "completions");
        const auto window = BatchNum(b, "window_s");
        if (p->disk_read_bps.has() && p->disk_write_bps.has() && n && *n > 0 && window) {
          disk.push_back((*p->disk_read_bps.value + *p->disk_write_bps.value) * *window / *n);
        } else {
          disk_why = !p->disk_read_bps.has() ? p->disk_read_bps.unavailable
                     : !p->disk_write_bps.has() ? p->disk_write_bps.unavailable
                                                 : "no run completed";
        }
        if (p->membw_bps.has()) membw.push_back(*p->membw_bps.value);
        else membw_why = p->membw_bps.unavailable;
      }
      l.run_time_s = MeanWithInterval(rt, confidence);
      if (!l.run_time_s.mean && !rt_why.empty()) l.run_time_s.unavailable = rt_why;
      l.runs_per_min = MeanWithInterval(rpm, confidence);
      l.cpu_s_per_run = MeanWithInterval(cpu, confidence);
      if (!l.cpu_s_per_run.mean && !cpu_why.empty()) l.cpu_s_per_run.unavailable = cpu_why;
      auto mean_metric = [](const std::vector<double>& v, const std::string& why) {
        if (v.empty()) return Metric::Unavailable(why.empty() ? "no measurement" : why);
        double s = 0;
        for (double x : v) s += x;
        return Metric::Of(s / static_cast<double>(v.size()));
      };
      l.memory_peak_bytes = mean_metric(peak, peak_why);
      l.disk_bytes_per_run = mean_metric(disk, disk_why);
      l.membw_bps = mean_metric(membw, membw_why);
      g.levels.push_back(std::move(l));
    }
    a.groups.push_back(std::move(g));
  }

  // Slowdowns: each limited partition against its scenario's unlimited one, copies by copies.
  auto unlimited_of = [&](const std::string& scenario) -> const BatchGroup* {
    for (const auto& g : a.groups) {
      if (g.scenario == scenario && g.partition.unlimited() && g.corunner_set.empty()) return &g;
    }
    return nullptr;
  };
  std::map<std::string, BatchSensitivity> sens;
  for (const auto& g : a.groups) {
    if (g.partition.unlimited() || !g.corunner_set.empty()) continue;
    const BatchGroup* base = unlimited_of(g.scenario);
    std::string resource;
    if (g.partition.limits.size() == 1 && g.partition.other.empty()) resource = g.partition.limits.begin()->first;
    if (g.partition.limits.empty() && g.partition.other.size() == 1) resource = g.partition.other.begin()->first;
    BatchSensitivity& s = sens[resource.empty() ? g.partition.Label() : resource];
    s.resource = resource.empty() ? g.partition.Label() : resource;
    s.judged_by = BatchJudgedByRunTime(resource) ? "run time" : "CPU time per run";
    if (!base) {
      s.verdict = "unavailable";
      s.evidence = "no unlimited partition of scenario " + g.scenario + " to compare with (add one to [partitions])";
      continue;
    }
    for (const auto& l : g.levels) {
      const BatchLevel* match = LevelAt(*base, l.copies);
      if (!match) continue;
      BatchSlowdown sd = SlowdownOf(g, l, *match, resource);
      const BatchFigure& judged = BatchJudgedByRunTime(resource) ? sd.run_time : sd.cpu_time;
      if (judged.mean) {
        FoldVerdict(judged, true, &s);
        s.evidence += (s.evidence.empty() ? "" : "; ") + g.partition.Label() + " at " + Copies(l.copies) + ": " +
                      s.judged_by + " " + Times(judged);
      }
      a.slowdowns.push_back(std::move(sd));
    }
    if (s.verdict.empty()) {
      s.verdict = "unavailable";
      if (s.evidence.empty()) s.evidence = "no level measured in both partitions";
    }
  }
  // Beside co-runners: each shared group against the same partition alone, by run time.
  std::vector<std::pair<const BatchGroup*, std::string>> beside;  // (group, verdict)
  for (const auto& g : a.groups) {
    if (g.corunner_set.empty()) continue;
    const BatchGroup* base = nullptr;
    for (const auto& b : a.groups) {
      if (b.corunner_set.empty() && b.scenario == g.scenario && b.partition.Label() == g.partition.Label()) base = &b;
    }
    BatchSensitivity& s = sens["beside " + g.corunner_set];
    s.resource = "beside " + g.corunner_set;
    s.judged_by = "run time";
    if (!base) {
      s.verdict = "unavailable";
      s.evidence = "the copies were not measured alone in " + g.partition.Label() + " ([colocation] alone = true)";
      continue;
    }
    for (const auto& l : g.levels) {
      const BatchLevel* match = LevelAt(*base, l.copies);
      if (!match) continue;
      BatchSlowdown sd = SlowdownOf(g, l, *match, "beside " + g.corunner_set);
      // The runs alternate alone and beside in each repetition: the ratio within a repetition
      // cancels the host's drift between repetitions, and their mean's interval is the paired
      // one (at least two repetitions measured both ways); else the two means' ratio.
      std::vector<double> paired;
      for (const auto& [rep, t] : l.run_time_by_repetition) {
        auto alone = match->run_time_by_repetition.find(rep);
        if (alone != match->run_time_by_repetition.end() && alone->second > 0) paired.push_back(t / alone->second);
      }
      if (paired.size() >= 2) sd.run_time = MeanWithInterval(paired, a.confidence);
      const BatchFigure& judged = sd.run_time;
      if (judged.mean) {
        // One repetition gives no interval, and no verdict by pressure.
        FoldVerdict(judged, false, &s);
        s.evidence += (s.evidence.empty() ? "" : "; ") + Copies(l.copies) + ": run time " + Times(judged) +
                      (paired.size() >= 2 ? " (the mean of " + std::to_string(paired.size()) + " repetitions' ratios)" : "");
      }
      a.slowdowns.push_back(std::move(sd));
    }
    if (s.verdict.empty()) {
      s.verdict = "unavailable";
      if (s.evidence.empty()) s.evidence = "no copies level measured both alone and beside the set";
    } else {
      s.evidence += " (" + g.placement + ")";
    }
    beside.emplace_back(&g, s.verdict);
  }
  for (auto& [k, s] : sens) {
    if (!s.evidence.empty() && s.verdict != "unavailable") {
      s.evidence += " (threshold: slowdown > " + Fmt(1 + kBatchSensitivity) +
                    (s.verdict == "sensitive" ? ", by the interval's low end where there is one)" : ")");
    }
    a.sensitivity.push_back(s);
  }

  // The category, from the unlimited partition of the first scenario that has one.
  BatchCategory& c = a.category;
  const BatchGroup* ref = nullptr;
  for (const auto& g : a.groups) {
    if (g.partition.unlimited() && g.corunner_set.empty()) {
      ref = &g;
      break;
    }
  }
  if (!ref || ref->levels.empty()) {
    c.unavailable = "no unlimited partition was measured: the category is judged without limits";
    return a;
  }
  const BatchLevel& one = ref->levels.front();
  const BatchLevel& most = ref->levels.back();
  // Disk: bytes per run, with the CPU share of a run's wall time.
  std::optional<double> cpu_share;
  if (one.cpu_s_per_run.mean && one.run_time_s.mean && *one.run_time_s.mean > 0 && one.copies > 0) {
    // Copies on fewer CPUs than copies share them: the share is per copy of the allotted CPU time.
    cpu_share = *one.cpu_s_per_run.mean / *one.run_time_s.mean;
  }
  bool disk = false;
  if (one.disk_bytes_per_run.has()) {
    const double bytes = *one.disk_bytes_per_run.value;
    disk = bytes >= kBatchDiskBytesPerRun && cpu_share && *cpu_share <= kBatchDiskMaxCpuShare;
    c.evidence.push_back("disk I/O per run " + BatchBytes(bytes) + " (disk-bound at ≥ " +
                         BatchBytes(kBatchDiskBytesPerRun) + " with CPU share ≤ " + Fmt(kBatchDiskMaxCpuShare) + ")");
  } else {
    c.evidence.push_back("disk I/O per run unavailable: " + one.disk_bytes_per_run.unavailable);
  }
  if (cpu_share) {
    c.evidence.push_back("CPU share of a run's wall time at " + Fmt(one.copies) + " cop" +
                         (one.copies == 1 ? "y" : "ies") + ": " + Fmt(*cpu_share));
  }
  // Memory bandwidth per CPU-second, where measurable.
  std::optional<double> bw_per_cpu;
  if (most.membw_bps.has() && most.cpu_s_per_run.mean && most.runs_per_min.mean && *most.runs_per_min.mean > 0) {
    const double cpu_per_s = *most.cpu_s_per_run.mean * *most.runs_per_min.mean / 60.0;
    if (cpu_per_s > 0) bw_per_cpu = *most.membw_bps.value / cpu_per_s;
  }
  if (bw_per_cpu) {
    c.evidence.push_back("memory bandwidth " + BatchBytes(*bw_per_cpu) + "/CPU-second (memory-bound at ≥ " +
                         BatchBytes(kBatchMemBwPerCpuSecond) + ")");
  } else {
    c.evidence.push_back("memory bandwidth unavailable: " +
                         (most.membw_bps.has() ? std::string("no CPU time per run") : most.membw_bps.unavailable));
  }
  // Copy contention: CPU time per run at the most copies over one copy.
  std::optional<double> contention;
  std::optional<double> contention_low, contention_high;
  if (ref->levels.size() >= 2) {
    BatchFigure r = RatioOf(most.cpu_s_per_run, one.cpu_s_per_run);
    if (r.mean) {
      contention = *r.mean;
      contention_low = r.low;
      contention_high = r.high;
      c.evidence.push_back("CPU time per run at " + Fmt(most.copies) + " copies over " + Fmt(one.copies) + ": × " +
                           Fmt(*r.mean) + (r.low ? " [" + Fmt(*r.low) + ", " + Fmt(*r.high) + "]" : "") +
                           " (memory-bound at ≥ " + Fmt(kBatchMemoryContention) + ", cache-sensitive at ≥ " +
                           Fmt(kBatchCacheContention) + ")");
    } else {
      c.evidence.push_back("copy contention unavailable: " + r.unavailable);
    }
  } else {
    c.evidence.push_back("copy contention unavailable: one copies level measured (give [sweep] copies = [1, 2])");
  }
  // A cache partition's own verdict counts as cache evidence.
  bool llc_sensitive = false;
  for (const auto& s : a.sensitivity) llc_sensitive = llc_sensitive || (s.resource == "llc_ways" && s.verdict == "sensitive");
  // Beside ream's calibrated sources on CPUs apart from the copies' (the same partition, alone
  // interleaved): the run time's slowdown beside the memory-bandwidth source and a cache source
  // at their highest intensity, which resource a source stresses read from its row of the
  // pressure table.
  std::optional<std::string> by_mem_bw, by_llc;
  double top_mem_bw = -1, top_llc = -1;
  for (const auto& [g, verdict] : beside) {
    if (!g->apart || g->partition.Label() != ref->partition.Label() || g->scenario != ref->scenario) continue;
    const std::optional<pressure::Source> source = pressure::SourceFromName(g->pressure);
    if (!source) continue;
    const pressure::Stressed stressed = pressure::Info(*source).stresses;
    if (stressed == pressure::Stressed::kMemoryBandwidth && g->intensity > top_mem_bw) {
      top_mem_bw = g->intensity;
      by_mem_bw = verdict;
    }
    if (stressed == pressure::Stressed::kCache && g->intensity > top_llc) {
      top_llc = g->intensity;
      by_llc = verdict;
    }
  }
  for (const auto& s : a.sensitivity) {
    for (const auto& [g, verdict] : beside) {
      if (s.resource != "beside " + g->corunner_set || !g->apart || g->pressure.empty()) continue;
      c.evidence.push_back("run time beside the " + g->pressure + " source at " + Fmt(g->intensity) + " % on other CPUs: " +
                           s.evidence + " — " + verdict + " (memory-bound beside mem_bw, cache-sensitive beside llc, "
                           "at a slowdown > " + Fmt(1 + kBatchSensitivity) + " by the interval's low end)");
    }
  }
  const bool pressure_memory = by_mem_bw && *by_mem_bw == "sensitive";
  const bool pressure_cache = by_llc && *by_llc == "sensitive";
  // Compute-bound by pressure: neither source slowed it beyond the threshold (the interval's
  // high end below it) where both were measured, or mem_bw where only it was.
  const bool pressure_compute = by_mem_bw && *by_mem_bw == "insensitive" && (!by_llc || *by_llc == "insensitive");
  llc_sensitive = llc_sensitive || pressure_cache;
  // Decided by copy contention alone: tentative when its interval crosses a threshold.
  const bool by_contention = !disk && !(bw_per_cpu && *bw_per_cpu >= kBatchMemBwPerCpuSecond) && !llc_sensitive &&
                             !pressure_memory && !pressure_compute;
  if (by_contention && contention_low && contention_high) {
    for (double t : {kBatchCacheContention, kBatchMemoryContention}) {
      if (*contention_low < t && *contention_high >= t) c.tentative = true;
    }
    if (c.tentative) {
      c.evidence.push_back("tentative: the copy contention's interval [" + Fmt(*contention_low) + ", " +
                           Fmt(*contention_high) + "] reaches across a threshold (more repetitions or a quieter "
                           "machine would settle it)");
    }
  }
  if (disk) {
    c.name = "disk-bound";
  } else if ((bw_per_cpu && *bw_per_cpu >= kBatchMemBwPerCpuSecond) || pressure_memory ||
             (!pressure_compute && contention && *contention >= kBatchMemoryContention)) {
    c.name = "memory-bound";
  } else if (llc_sensitive || (!pressure_compute && contention && *contention >= kBatchCacheContention)) {
    c.name = "cache-sensitive";
  } else if (contention || pressure_compute) {
    c.name = "compute-bound";
  } else {
    c.unavailable = by_mem_bw
                        ? "no evidence beyond disk I/O: copy contention needs two copies levels, memory bandwidth is "
                          "unavailable here, and beside the mem_bw source on other CPUs the slowdown was " +
                              *by_mem_bw + " (its interval reaches across " + Fmt(1 + kBatchSensitivity) +
                              "; more repetitions or a quieter machine would settle it)"
                        : "no evidence beyond disk I/O: copy contention needs two copies levels, memory bandwidth is "
                          "unavailable here, and no mem_bw source ran beside the copies on other CPUs";
  }
  return a;
}

nlohmann::json BatchAnalysis::ToJson() const {
  nlohmann::json j;
  j["program"] = program;
  j["confidence"] = confidence;
  auto metric = [](const Metric& m) {
    return m.has() ? nlohmann::json(*m.value) : nlohmann::json({{"unavailable", m.unavailable}});
  };
  nlohmann::json gs = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json ls = nlohmann::json::array();
    for (const auto& l : g.levels) {
      ls.push_back({{"copies", l.copies},
                    {"repetitions", l.repetitions},
                    {"failed", l.failed},
                    {"failures", l.failures},
                    {"run_time_s", l.run_time_s.ToJson()},
                    {"runs_per_min", l.runs_per_min.ToJson()},
                    {"cpu_s_per_run", l.cpu_s_per_run.ToJson()},
                    {"memory_peak_bytes", metric(l.memory_peak_bytes)},
                    {"disk_bytes_per_run", metric(l.disk_bytes_per_run)},
                    {"mem_bw_bps", metric(l.membw_bps)}});
    }
    nlohmann::json gj = {{"key", g.key}, {"scenario", g.scenario}, {"partition", g.partition.Label()}, {"levels", ls}};
    if (!g.corunner_set.empty()) {
      gj["tenants"] = g.corunner_set;
      gj["placement"] = g.placement;
      gj["apart"] = g.apart;
      if (!g.pressure.empty()) gj["pressure"] = {{"source", g.pressure}, {"intensity", g.intensity}};
    }
    gs.push_back(gj);
  }
  j["groups"] = gs;
  nlohmann::json sd = nlohmann::json::array();
  for (const auto& s : slowdowns) {
    sd.push_back({{"group", s.group},
                  {"resource", s.resource},
                  {"copies", s.copies},
                  {"run_time", s.run_time.ToJson()},
                  {"cpu_time_per_run", s.cpu_time.ToJson()},
                  {"throughput", s.throughput.ToJson()}});
  }
  j["slowdowns"] = sd;
  nlohmann::json ss = nlohmann::json::array();
  for (const auto& s : sensitivity) {
    ss.push_back({{"resource", s.resource},
                  {"verdict", s.verdict},
                  {"judged_by", s.judged_by},
                  {"worst", s.worst ? nlohmann::json(*s.worst) : nlohmann::json()},
                  {"evidence", s.evidence}});
  }
  j["sensitivity"] = ss;
  j["category"] = {{"name", category.name.empty() ? nlohmann::json() : nlohmann::json(category.name)},
                   {"evidence", category.evidence}};
  j["category"]["tentative"] = category.tentative;
  if (!category.unavailable.empty()) j["category"]["unavailable"] = category.unavailable;
  return j;
}

}  // namespace ream::analysis
