// The windows of a point under a load schedule, as they end (load/load_window.h): the subject's
// figures from the generator's report, each neighbour's throughput over the same span, and —
// in a managed run — the manager's decision on them, its moves written through the tenants'
// sandboxes before the next window. Every window and every move is stored with the run
// (store/manager_records.h), in static runs too, so the modes compare window by window
// (docs/manager.md).
//
//   RunWindows windows(p, store, run_id, spec, corunners, subject, managed);
//   REAM_RETURN_IF_ERROR(windows.Start());           // the starting allocation, before the warm-up
//   hooks.window_report = [&](const LoadWindow& w) { windows.OnWindow(w); };
//   ... the level ...
//   windows.status();                                // the first store error, if any
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiment/corunners.h"
#include "load/load_window.h"
#include "manager/policy.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"
#include "spec/spec.h"
#include "store/store.h"

namespace ream {

// Whether the manager acts in a run beside `set` (the co-runners' names): every co-runner its
// resources name is in the set. A manager of the subject's resources alone acts in every run.
bool ManagedRun(const ManagerSpec& manager, const std::vector<std::string>& set);

// A neighbour's throughput over a window: the CPU seconds it got per second between two readings
// (CorunnerSet::Progress), in CPU-s/s; nullopt when either reading has no CPU time.
std::optional<double> CpuThroughput(const CorunnerSet::Progress& before, const CorunnerSet::Progress& after,
                                    double seconds);

class RunWindows {
 public:
  // `corunners` may be null (the subject alone); `managed` says whether spec.manager acts here.
  RunWindows(Platform& p, Store& store, int64_t run_id, const ExperimentSpec& spec, CorunnerSet* corunners,
             Sandbox& subject, bool managed, std::string mode);

  // Makes the policy and writes its starting allocation to the tenants (a managed run), and takes
  // the neighbours' first reading. The first write that fails, naming the tenant and the knob.
  Status Start();
  // One window as it ended: figures, decision, moves, store. Never throws; a store error is kept
  // for status() and ends the storing (the level goes on).
  void OnWindow(const LoadWindow& w);
  // The first error storing a window; Ok otherwise.
  const Status& status() const { return status_; }
  int windows() const { return windows_; }
  int actions() const { return actions_; }
  int failed_actions() const { return failed_actions_; }

 private:
  Status Write(const std::string& tenant, const Knob& knob, double level);
  std::map<std::string, std::map<std::string, ManagerLevel>> AllocationNow() const;

  Platform& p_;
  Store& store_;
  int64_t run_id_;
  const ExperimentSpec& spec_;
  CorunnerSet* corunners_;
  Sandbox& subject_;
  bool managed_;
  std::string mode_;
  std::unique_ptr<Policy> policy_;
  std::vector<Movable> movables_;
  std::map<std::string, CorunnerSet::Progress> last_;
  int64_t last_read_ns_ = 0;
  int64_t first_index_ = 0;  // windows already stored for the run (an earlier attempt's)
  Status status_;
  int windows_ = 0, actions_ = 0, failed_actions_ = 0;
};

}  // namespace ream
