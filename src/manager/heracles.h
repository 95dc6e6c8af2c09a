// Heracles' top-level controller (Lo, Cheng, Govindaraju, Ranganathan and Kozyrakis,
// "Heracles: Improving Resource Efficiency at Scale", ISCA 2015), with its sub-controllers'
// growth reduced to one unit per window: a negative slack disables the best-effort neighbours
// (every resource of theirs to its lower bound: the fewest CPUs, the idle class) and cools down;
// a load above disable_above_load of the subject's peak disables them until it falls below
// enable_below_load; a slack below stop_growth_below stops their growth, below shrink_below
// shrinks them a unit; otherwise they grow a unit, the resources in turn (docs/manager.md).
#pragma once

#include <memory>

#include "manager/moves.h"
#include "manager/policy.h"

namespace ream {

std::unique_ptr<Policy> MakeHeracles(const ManagerSpec& spec, Moves moves);

}  // namespace ream
