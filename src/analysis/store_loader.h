// Reads an experiment from the results store (src/store/) into the analysis's own structs:
// partition knobs parsed from their text, scenario threads and physical cores from the
// resolved CPU list and the recorded topology, metrics with their "unavailable" reasons,
// and the merged sojourn histograms for percentile confidence intervals.
#pragma once

#include <string>

#include "analysis/data.h"
#include "partition/knobs.h"
#include "platform/status.h"
#include "store/store.h"

namespace ream::analysis {

// Loads the experiment `name`, or the most recently created one when `name` is empty.
// NotFound (listing the experiments there are) when there is no such experiment or the
// database holds none.
Result<ExperimentData> LoadExperiment(Store& store, const std::string& name);

// Partition knob text as specs write it ("50%", "512M", "100mbit", "4") into a Partition:
// each knob of `table` that limits a resource gives its amount; a knob without one (or not
// in the table) is kept as text in Partition::other. InvalidArgument naming the knob when a
// value cannot be read.
Result<Partition> PartitionFromKnobs(const nlohmann::json& knobs, const std::string& label,
                                     const KnobTable& table = BuiltinKnobs());

}  // namespace ream::analysis
