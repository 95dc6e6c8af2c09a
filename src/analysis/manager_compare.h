// A manager judged against static partitions in one run (docs/manager.md, "Judged in one run"):
// the windows of every run under the load schedule, grouped by mode — the subject alone, beside
// each static co-runner set, beside the managed set — into the share of windows that met QoS
// (and how many were valid), the neighbours' throughput, Heracles' EMU where the capacities are
// known, the settling time after each step of the load, the manager's moves, and which modes are
// on the Pareto front (no other mode meets QoS in more windows *and* gives the neighbours more).
// Pure: the store's windows in (store/manager_records.h), figures out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/manager_records.h"

namespace ream::analysis {

// One run's windows and what it was: its mode ("alone", the co-runner set's label) and whether the
// manager acted in it.
struct ModeRun {
  std::string mode;
  bool managed = false;
  std::vector<ManagerWindowRecord> windows;
  // Each neighbour's throughput alone (CPU-s/s over a window with the subject not running), by
  // name, where measured: EMU's denominators.
  std::map<std::string, double> neighbour_alone;
};

struct ModeFigures {
  std::string mode;
  bool managed = false;
  int runs = 0;
  int windows = 0, valid = 0, met = 0;  // met: valid, tail measured and within the target
  // met / windows: an invalid window counts as not shown to meet QoS (it was not measured as
  // asked); nullopt without windows.
  std::optional<double> met_share;
  std::string met_note;  // why there is no share: no window of the mode was valid
  // The neighbours' throughput summed over the set (CPU-s/s), the mean over the windows that
  // have it; nullopt (with why) where none had it (the subject alone: no neighbour).
  std::optional<double> neighbour_throughput;
  std::string neighbour_note;
  // Heracles' effective machine utilization over the windows: the subject's load over its peak
  // plus each neighbour's throughput over its throughput alone; nullopt with why.
  std::optional<double> emu;
  std::string emu_note;
  // After each step of the load (its target rate changing by more than a tenth between windows):
  // the seconds from the step's first window until a window met QoS again, the mean over steps
  // that settled; unsettled counts steps where no window met QoS before the next step.
  std::optional<double> settling_s;
  int steps = 0, unsettled = 0;
  int actions = 0, failed_actions = 0;
  bool pareto = false;
  std::vector<std::string> dominated_by;  // modes that meet QoS in as many windows and give more
};

struct ManagerComparison {
  std::vector<ModeFigures> modes;  // alone first, then in the order the runs came
  // The managed mode's standing, in words: "on the Pareto front; dominates stream@sched=normal".
  std::string verdict;
  std::string note;  // why there is nothing to compare, when there is not
};

// `peak_qps`: the subject's capacity at QoS (the manager's peak_qps, or the sweep's), 0 unknown.
ManagerComparison CompareModes(const std::vector<ModeRun>& runs, double peak_qps);

}  // namespace ream::analysis
