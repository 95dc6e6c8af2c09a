#include "analysis/manager_compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "platform/text.h"

namespace ream::analysis {
namespace {

bool Met(const ManagerWindowRecord& w) {
  return w.valid && w.tail_us && w.target_us && *w.tail_us <= *w.target_us;
}

// A step of the load: the target rate moved by more than a tenth between two windows.
bool StepBetween(const ManagerWindowRecord& a, const ManagerWindowRecord& b) {
  if (!a.load_qps || !b.load_qps) return false;
  return std::fabs(*b.load_qps - *a.load_qps) > 0.1 * std::max(*a.load_qps, 1.0);
}

// Whether `a` dominates `b`: meets QoS in at least as large a share of its windows and gives the
// neighbours at least as much, one of the two strictly.
bool Dominates(const ModeFigures& a, const ModeFigures& b) {
  if (!a.met_share || !b.met_share || !a.neighbour_throughput || !b.neighbour_throughput) return false;
  const bool no_worse = *a.met_share >= *b.met_share && *a.neighbour_throughput >= *b.neighbour_throughput;
  const bool better = *a.met_share > *b.met_share || *a.neighbour_throughput > *b.neighbour_throughput;
  return no_worse && better;
}

void AddRun(const ModeRun& r, double peak_qps, ModeFigures& f, double& neighbour_sum, int& neighbour_windows,
            double& emu_sum, int& emu_windows, double& settle_sum, int& settled) {
  ++f.runs;
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const ManagerWindowRecord& w = r.windows[i];
    ++f.windows;
    f.valid += w.valid;
    f.met += Met(w);
    f.actions += static_cast<int>(w.actions.size());
    for (const auto& a : w.actions) f.failed_actions += !a.failure.empty();
    if (!w.neighbour_throughput.empty()) {
      double sum = 0;
      for (const auto& [name, t] : w.neighbour_throughput) sum += t;
      neighbour_sum += sum;
      ++neighbour_windows;
    }
    // EMU over the windows where every figure it needs was measured.
    if (peak_qps > 0 && w.valid && w.load_qps) {
      double emu = *w.load_qps / peak_qps;
      bool complete = true;
      for (const auto& [name, t] : w.neighbour_throughput) {
        auto alone_t = r.neighbour_alone.find(name);
        if (alone_t == r.neighbour_alone.end() || alone_t->second <= 0) {
          complete = false;
          break;
        }
        emu += t / alone_t->second;
      }
      if (complete) {
        emu_sum += emu;
        ++emu_windows;
      }
    }
    if (i > 0 && StepBetween(r.windows[i - 1], w)) {
      ++f.steps;
      const double step_at = r.windows[i - 1].end_s;
      bool done = false;
      for (size_t j = i; j < r.windows.size() && (j == i || !StepBetween(r.windows[j - 1], r.windows[j])); ++j) {
        if (Met(r.windows[j])) {
          settle_sum += r.windows[j].end_s - step_at;
          ++settled;
          done = true;
          break;
        }
      }
      f.unsettled += !done;
    }
  }
}

}  // namespace

ManagerComparison CompareModes(const std::vector<ModeRun>& runs, double peak_qps) {
  ManagerComparison out;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ModeRun*>> by_mode;
  for (const ModeRun& r : runs) {
    if (r.windows.empty()) continue;
    if (!by_mode.count(r.mode)) order.push_back(r.mode);
    by_mode[r.mode].push_back(&r);
  }
  if (order.empty()) {
    out.note = "no run stored windows (a run reports them under [load] window or a [manager])";
    return out;
  }
  std::stable_partition(order.begin(), order.end(), [](const std::string& m) { return m == "alone"; });
  for (const std::string& mode : order) {
    ModeFigures f;
    f.mode = mode;
    double neighbour_sum = 0, emu_sum = 0, settle_sum = 0;
    int neighbour_windows = 0, emu_windows = 0, settled = 0;
    for (const ModeRun* r : by_mode[mode]) {
      f.managed = f.managed || r->managed;
      AddRun(*r, peak_qps, f, neighbour_sum, neighbour_windows, emu_sum, emu_windows, settle_sum, settled);
    }
    // A mode none of whose windows was valid showed nothing either way: it is not judged.
    if (f.valid > 0) {
      f.met_share = static_cast<double>(f.met) / f.windows;
    } else {
      f.met_note = "no window was valid";
    }
    if (mode == "alone") {
      f.neighbour_throughput = 0;
      f.neighbour_note = "no neighbour runs beside the subject";
    } else if (neighbour_windows > 0) {
      f.neighbour_throughput = neighbour_sum / neighbour_windows;
    } else {
      f.neighbour_note = "no window measured the neighbours' CPU time";
    }
    if (emu_windows > 0) {
      f.emu = emu_sum / emu_windows;
    } else {
      f.emu_note = peak_qps > 0 ? "no valid window had every neighbour's throughput and throughput alone"
                                : "the subject's capacity at QoS is not known (give [manager] peak_qps)";
    }
    if (settled > 0) f.settling_s = settle_sum / settled;
    out.modes.push_back(std::move(f));
  }
  for (ModeFigures& f : out.modes) {
    f.pareto = f.met_share && f.neighbour_throughput;
    for (const ModeFigures& g : out.modes) {
      if (&g != &f && Dominates(g, f)) {
        f.pareto = false;
        f.dominated_by.push_back(g.mode);
      }
    }
  }
  auto managed = std::find_if(out.modes.begin(), out.modes.end(), [](const ModeFigures& f) { return f.managed; });
  if (managed == out.modes.end()) {
    out.verdict = "no managed run: nothing to judge";
    return out;
  }
  std::vector<std::string> dominates;
  for (const ModeFigures& g : out.modes) {
    if (&g != &*managed && Dominates(*managed, g)) dominates.push_back(g.mode);
  }
  if (!managed->met_share || !managed->neighbour_throughput) {
    out.verdict = "the managed mode cannot be judged: " +
                  (managed->met_share ? managed->neighbour_note : managed->met_note);
  } else if (managed->pareto) {
    out.verdict = "the manager is on the Pareto front" +
                  (dominates.empty() ? std::string(", dominating no other mode") : "; it dominates " + Join(dominates, ", "));
  } else {
    out.verdict = "the manager is not on the Pareto front: dominated by " + Join(managed->dominated_by, ", ");
  }
  return out;
}

}  // namespace ream::analysis
