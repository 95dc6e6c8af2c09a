// The second seed's expected sensitivities (§5.3.3), predicted from the queueing model of the
// reference setting and set beside the measured ones, per LogGP knob the experiment varied:
// each µs of L adds 2 µs to the base response time and leaves slope and saturation alone; o
// moves the saturation point to c / (S0 + k·o); G matters once the offered bytes/s approach
// 1/G; g floors each connection's inter-message time. Internal to the analysis.
#pragma once

#include <vector>

#include "analysis/analysis.h"

namespace ream::analysis {

// One entry per LogGP knob (in L, o, g, G order) and scenario whose partitions vary it alone
// (the other knobs fixed); none when the experiment varied none.
std::vector<PredictedSensitivity> PredictSensitivity(const std::vector<GroupAnalysis>& groups,
                                                     const KnobTable& knobs);

}  // namespace ream::analysis
