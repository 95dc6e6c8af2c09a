#include "analysis/across_runs.h"

#include <algorithm>
#include <sstream>

#include "analysis/analysis.h"
#include "analysis/format.h"
#include "platform/median.h"
#include "platform/text.h"

namespace ream::analysis {
namespace {

// The spec's lines without its top-level `name` (the one key two runs of one spec must differ
// in, names being unique in a database); lines inside tables are kept whatever their key.
std::vector<std::string> SpecLinesButName(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  bool top = true;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '[') top = false;
    if (top && first != std::string::npos && line.compare(first, 4, "name") == 0) {
      const size_t eq = line.find_first_not_of(" \t", first + 4);
      if (eq != std::string::npos && line[eq] == '=') continue;
    }
    lines.push_back(line);
  }
  return lines;
}

Status SameSpec(const ExperimentData& a, const ExperimentData& b) {
  const auto la = SpecLinesButName(a.spec_text), lb = SpecLinesButName(b.spec_text);
  if (la == lb) return Status::Ok();
  size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  auto shown = [i](const std::vector<std::string>& l) {
    return i < l.size() ? "'" + l[i] + "'" : std::string("its end");
  };
  return InvalidArgument("experiment '" + b.name + "' is not a run of the spec of '" + a.name +
                         "': beyond their names, their specs first differ at " + shown(la) + " against " +
                         shown(lb) + "; only runs of one spec are analysed together");
}

AcrossRunsFigure Figure(std::string figure, std::string group, std::vector<Bounded> per_run, Bounded pooled,
                        const std::vector<std::string>& experiments) {
  AcrossRunsFigure f{std::move(figure), std::move(group), std::move(per_run), std::move(pooled), {}, {}, {}, ""};
  std::vector<double> exact;
  std::vector<std::string> bound, none;
  for (size_t i = 0; i < f.per_run.size(); ++i) {
    const Bounded& b = f.per_run[i];
    if (b.exact()) {
      exact.push_back(*b.value);
    } else if (b.value) {
      bound.push_back(experiments[i]);
    } else {
      none.push_back(experiments[i]);
    }
  }
  if (!exact.empty()) {
    f.low = *std::min_element(exact.begin(), exact.end());
    f.high = *std::max_element(exact.begin(), exact.end());
    const double median = Median(exact);
    if (median > 0) f.spread = (*f.high - *f.low) / median;
  }
  if (!bound.empty()) f.note = "only a bound in " + Join(bound, ", ");
  if (!none.empty()) f.note += (f.note.empty() ? "" : "; ") + std::string("none in ") + Join(none, ", ");
  if (!f.note.empty() && exact.empty()) f.note += ": no range";
  return f;
}

}  // namespace

Result<ExperimentData> PoolRuns(const ExperimentData& first, std::span<const ExperimentData> more) {
  ExperimentData pooled = first;
  pooled.pooled = {first.name};
  int offset = 0;
  for (auto& r : pooled.runs) {
    r.source = first.name;
    offset = std::max(offset, r.repetition + 1);
  }
  for (const ExperimentData& e : more) {
    if (std::find(pooled.pooled.begin(), pooled.pooled.end(), e.name) != pooled.pooled.end()) {
      return InvalidArgument("experiment '" + e.name + "' is given twice");
    }
    REAM_RETURN_IF_ERROR(SameSpec(first, e));
    pooled.pooled.push_back(e.name);
    int next = offset;
    for (RunData r : e.runs) {
      r.source = e.name;
      r.repetition += offset;
      next = std::max(next, r.repetition + 1);
      pooled.runs.push_back(std::move(r));
    }
    offset = next;
    for (const auto& [scenario, why] : e.skipped_scenarios) pooled.skipped_scenarios.emplace(scenario, why);
  }
  return pooled;
}

Status CompareAcrossRuns(const ExperimentData& pooled, const AnalysisOptions& o, ExperimentAnalysis& a) {
  if (pooled.pooled.size() < 2) return Status::Ok();
  // Each run on its own needs only its capacities: no recommendation, reporter or matrix.
  AnalysisOptions one = o;
  one.target_qps.reset();
  one.reporter = nullptr;
  one.subjects.clear();
  std::vector<ExperimentAnalysis> each;
  for (const std::string& name : pooled.pooled) {
    ExperimentData d = pooled;
    d.name = name;
    d.pooled.clear();
    d.runs.clear();
    for (const auto& r : pooled.runs) {
      if (r.source == name) d.runs.push_back(r);
    }
    auto an = Analyze(d, one);
    if (!an.ok()) return Status(an.status().code(), "run '" + name + "' on its own: " + an.status().message());
    each.push_back(std::move(an).value());
  }
  AcrossRuns out;
  out.experiments = pooled.pooled;
  const std::string u = std::string(LoadAxisUnit(pooled.load_axis));
  for (const GroupAnalysis& g : a.groups) {
    std::vector<Bounded> per_run;
    for (const auto& an : each) {
      const GroupAnalysis* mine = an.Find(g.key);
      per_run.push_back(mine ? CapacityFigure(mine->capacity.qps, mine->capacity.lower_bound,
                                              mine->capacity.upper_bound, mine->capacity.status)
                             : Bounded::Withheld("not measured in this run"));
    }
    out.figures.push_back(Figure(u + " under QoS", g.key, std::move(per_run),
                                 CapacityFigure(g.capacity.qps, g.capacity.lower_bound, g.capacity.upper_bound,
                                                g.capacity.status),
                                 out.experiments));
  }
  for (const ColocationGroup& c : a.colocation) {
    std::vector<Bounded> per_run;
    for (const auto& an : each) {
      auto mine = std::find_if(an.colocation.begin(), an.colocation.end(), [&c](const ColocationGroup& x) {
        return x.set == c.set && x.group_key == c.group_key;
      });
      per_run.push_back(mine != an.colocation.end() ? mine->TogetherCapacity()
                                                    : Bounded::Withheld("not measured in this run"));
    }
    out.figures.push_back(Figure(u + " under QoS together", c.group_key + " beside " + c.set, std::move(per_run),
                                 c.TogetherCapacity(), out.experiments));
  }
  a.across_runs = std::move(out);
  return Status::Ok();
}

}  // namespace ream::analysis
