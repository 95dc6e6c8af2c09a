// The null sandbox kind: runs the workload as a plain child process of ream, with no kernel
// object at all (no cgroup, namespace, qdisc or resctrl group) and no partition. It exists to
// test what sits above the sandbox seam — the runner, `ream exec`'s plumbing — without root,
// as fio's `null` engine exists to test fio itself. It enforces no knob (a spec that asks for
// one is refused by the runner's preflight) and its monitor target says why nothing is sampled.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

std::unique_ptr<SandboxKind> MakeNullSandboxKind(Platform& platform);

// A null sandbox holds no partition, so a manager's move of one of its knobs changes nothing; it
// is kept here instead, for the tests of what moves knobs: the sandbox's name (ream-null-...),
// the workload's argv[0] and the rest of its command line, the knob and the level, in order.
struct NullMove {
  std::string sandbox;
  std::vector<std::string> argv;
  std::string knob;
  double level = 0;
};
std::vector<NullMove> NullSandboxMoves();

}  // namespace ream
