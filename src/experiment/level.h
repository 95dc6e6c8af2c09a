// One load level of a run: the monitors sample the workload's sandbox over exactly the
// measured window while a load driver drives it, and the point's columns come from both.
// The workload's fate decides first: a workload that died makes the point failed whatever
// the generator measured.
#pragma once

#include <chrono>
#include <functional>

#include "experiment/load_driver.h"
#include "experiment/workload_launch.h"
#include "load/generator.h"
#include "platform/platform.h"
#include "store/store.h"

namespace ream {

class CorunnerSet;

// The point of one level (not yet stored: run_id, seq, target and start time are set, the
// attempt is the caller's). Cancelled when interrupted; the driver's error when it could not
// run at all.
// With `corunners` (a shared run), each co-runner is sampled over the same window, its figures
// are the point's `corunners`, and a co-runner that ended during the window makes the point
// invalid, naming it and how it ended.
// With options.window_ns, `on_window` hears each window of the level as it ends (DriverHooks).
Result<PointData> MeasureLevel(Platform& p, LoadDriver& driver, LaunchedWorkload& workload,
                               const LoadOptions& options, std::chrono::nanoseconds sample_interval,
                               const std::function<bool()>& interrupted, CorunnerSet* corunners = nullptr,
                               const std::function<void(const LoadWindow&)>& on_window = {});

}  // namespace ream
