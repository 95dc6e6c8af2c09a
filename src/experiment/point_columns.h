// The columns of a stored point, filled from what measured it: the generator's JSON document
// (LoadResult::ToJson(), as `ream load --json` prints it) and the monitor's report. Pure
// decoding, tested on its own (point_columns_test.cc): a metric absent from its source stays
// NULL with the reason, never a zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "monitor/monitor.h"
#include "platform/status.h"
#include "store/store.h"

namespace ream {

// The generator's JSON document out of `ream load --json /dev/stdout`'s captured output: the
// lines from a line "{" to the first line "}" (the summary may come before or after it).
// Corrupt when there is none, it is truncated, or it does not parse.
Result<nlohmann::json> ExtractGeneratorJson(const std::string& text);

// Fills the client-side columns and histograms from the generator's JSON.
void FillFromGenerator(const nlohmann::json& generator, PointData* d);

// Fills the server-side columns from the monitor's report; a metric it could not measure is
// NULL with the monitor's reason.
void FillFromMonitor(const MonitorReport& report, PointData* d);

}  // namespace ream
