// What a manager decided, window by window, as the store keeps it (schema 11, tables
// manager_windows and manager_actions, one row per window of a run and per action): the
// figures the policy read, the allocation it left, its note, and each move with its reason and
// whether the partition layer applied it. Store::InsertManagerWindow writes a window with its
// actions in one transaction; ListManagerWindows reads them back typed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ream {

// One move of one tenant's resource, between levels in the knob's own unit (a quota's CPUs, a
// class's 0 = idle / 1 = normal) and in its own words ("40%", "idle").
struct ManagerActionRecord {
  int seq = 0;  // its order within the window
  std::string tenant;
  std::string knob;
  double from = 0, to = 0;
  std::string from_text, to_text;
  std::string reason;
  // Why the partition layer could not apply it; empty when it did.
  std::string failure;
};

// A tenant's level of one resource: the number and its text.
struct ManagerLevel {
  double level = 0;
  std::string text;
};

struct ManagerWindowRecord {
  int64_t run_id = 0;
  int64_t window = 0;  // the window's number in the run (column window_index)
  double end_s = 0;    // when it ended, seconds since the run's load began
  bool valid = false;
  std::string invalid_because;
  // The subject's tail at the QoS percentile, the target and the slack; unset (NULL) when not
  // measured, never 0.
  std::optional<double> tail_us, target_us, slack;
  std::optional<double> load_qps;
  // Each neighbour's throughput in its own unit, by name (neighbours_json).
  std::map<std::string, double> neighbour_throughput;
  // The allocation after the window's actions: tenant -> knob -> level (allocation_json).
  std::map<std::string, std::map<std::string, ManagerLevel>> allocation;
  std::string note;  // the policy's conclusion in words
  std::vector<ManagerActionRecord> actions;
};

}  // namespace ream
