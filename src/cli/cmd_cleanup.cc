// `ream cleanup`: remove the kernel objects (cgroups, namespaces, veths, qdiscs, resctrl
// groups, libvirt domains) and files that ream runs which died without cleaning up (e.g.
// SIGKILLed) left behind.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "sandbox/state.h"

namespace ream::cli {
namespace {

struct CleanupFlags {
  std::string state_dir = kDefaultStateDir;
};

int RunCleanup(const CleanupFlags& f) {
  auto platform = MakePosixPlatform();
  CleanupReport r = CleanupDeadRuns(*platform, f.state_dir);
  for (const auto& o : r.removed) std::cout << "removed " << o << "\n";
  for (const auto& e : r.errors) std::cerr << "ream cleanup: " << e << "\n";
  std::cout << "ream cleanup: " << r.dead_runs << " dead run(s) cleaned, " << r.removed.size()
            << " object(s) removed; " << r.live_runs << " live run(s) left alone ("
            << f.state_dir << ")\n";
  return r.errors.empty() ? 0 : 1;
}

}  // namespace

void AddCleanupCommand(CLI::App& app, CommandList& commands) {
  auto f = std::make_shared<CleanupFlags>();
  CLI::App* sub = app.add_subcommand(
      "cleanup", "Remove the cgroups, namespaces, veths, qdiscs, resctrl groups, domains and scratch "
      "directories of dead ream runs");
  sub->add_option("--state-dir", f->state_dir, "Where ream records created objects")
      ->capture_default_str();
  commands.push_back({sub, [f] { return RunCleanup(*f); }});
}

}  // namespace ream::cli
