// `ream corun [--sched normal|batch|idle] [--repeat] -- COMMAND [ARGS...]`: how a co-runner
// runs in its sandbox (experiment/corunners.h). It puts itself in the scheduling class (which
// COMMAND inherits), runs COMMAND, and with --repeat runs it again each time it ends with
// status 0, so a batch job's pressure lasts the whole point. Each completion is one stdout line
// the runner counts, timed on the monotonic clock:
//   ream-corun completed N seconds=S
// and its end, whatever it was, one line before it exits with COMMAND's status (128 + signal):
//   ream-corun ended killed by signal 9 (SIGKILL) after N completion(s)
// SIGTERM/SIGINT are passed on to COMMAND; it is SIGKILLed if ream corun itself dies.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "platform/affinity.h"
#include "platform/platform.h"
#include "platform/process.h"
#include "platform/signals.h"

namespace ream::cli {
namespace {

int RunCorun(const std::string& sched, bool repeat, const std::vector<std::string>& argv) {
  if (argv.empty()) {
    std::cerr << "ream corun: give the command after --\n";
    return 2;
  }
  SchedulingClass c = sched == "idle" ? SchedulingClass::kIdle : sched == "batch" ? SchedulingClass::kBatch
                                                                                  : SchedulingClass::kOther;
  if (Status s = SetSchedulingClass(c); !s.ok()) {
    std::cout << "ream-corun ended could not enter scheduling class " << sched << ": " << s.message() << std::endl;
    return 1;
  }
  TerminationSignals::Install();
  auto platform = MakePosixPlatform();
  Platform& p = *platform;
  int64_t completions = 0;
  while (true) {
    SpawnOptions so;
    so.argv = argv;
    const int64_t start_ns = p.MonotonicNanos();
    auto child = p.Spawn(so);
    if (!child.ok()) {
      std::cout << "ream-corun ended could not start '" << argv[0] << "': " << child.status().message() << " after "
                << completions << " completion(s)" << std::endl;
      return 127;
    }
    if (completions == 0) std::cout << "ream-corun started pid=" << (*child)->pid() << std::endl;
    std::optional<ProcessExit> exit;
    bool forwarded = false;
    while (!exit) {
      auto e = (*child)->Wait(std::chrono::milliseconds(20));
      if (e.ok()) {
        exit = *e;
        break;
      }
      if (int sig = TerminationSignals::Received(); sig != 0 && !forwarded) {
        (void)(*child)->Signal(sig);
        forwarded = true;
      }
    }
    const double seconds = static_cast<double>(p.MonotonicNanos() - start_ns) / 1e9;
    if (repeat && !exit->signaled && exit->exit_code == 0 && TerminationSignals::Received() == 0) {
      ++completions;
      std::cout << "ream-corun completed " << completions << " seconds=" << seconds << std::endl;
      continue;
    }
    std::cout << "ream-corun ended " << exit->Describe() << " after " << completions << " completion(s)"
              << std::endl;
    return exit->ShellCode();
  }
}

}  // namespace

void AddCorunCommand(CLI::App& app, CommandList& commands) {
  auto sched = std::make_shared<std::string>("normal");
  auto repeat = std::make_shared<bool>(false);
  auto argv = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "corun", "Run a co-runner's command in a scheduling class, again after each successful end with --repeat "
               "(how ream run starts [[corunner]]s; each completion and the end are stdout lines)");
  sub->add_option("--sched", *sched, "Scheduling class: normal, batch or idle")
      ->check(CLI::IsMember({"normal", "batch", "idle"}));
  sub->add_flag("--repeat", *repeat, "Run the command again each time it exits with status 0");
  sub->add_option("command", *argv, "The command and its arguments (after --)")->required();
  commands.push_back({sub, [sched, repeat, argv] { return RunCorun(*sched, *repeat, *argv); }});
}

}  // namespace ream::cli
