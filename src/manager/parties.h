// PARTIES' controller (Chen, Delimitrou and Martínez, "PARTIES: QoS-Aware Resource Partitioning
// for Multiple Interactive Services", ASPLOS 2019), for one latency-critical subject beside
// best-effort neighbours: every window, a slack below grow_below moves one unit of a resource
// toward the subject, a slack above shrink_above moves one back; the resources are tried in
// turn, the one that last helped first; a move judged on the next valid window that did not
// help is undone and its resource skipped for skip_windows windows (docs/manager.md).
#pragma once

#include <memory>

#include "manager/moves.h"
#include "manager/policy.h"

namespace ream {

std::unique_ptr<Policy> MakeParties(const ManagerSpec& spec, Moves moves);

}  // namespace ream
