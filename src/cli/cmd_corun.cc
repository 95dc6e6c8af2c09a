// `ream corun [--sched normal|batch|idle] [--repeat] [--copies N] -- COMMAND [ARGS...]`: how a co-runner
// runs in its sandbox (experiment/corunners.h). It puts itself in the scheduling class (which
// COMMAND inherits), runs COMMAND, and with --repeat runs it again each time it ends with
// status 0, so a batch job's pressure lasts the whole point; --copies N runs N at once (a batch
// subject's point, experiment/batch_point.h), each completion line then ending " copy=I". Each
// completion is one stdout line the runner counts, timed on the monotonic clock:
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

int RunCorun(const std::string& sched, bool repeat, int copies, const std::vector<std::string>& argv) {
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
  // One slot per copy (SPECrate's concurrent copies; one without --copies). A copy that ends
  // well is counted and, with --repeat, started again in its slot; any other end stops the
  // others and is ream corun's end.
  struct Slot {
    std::unique_ptr<ChildProcess> child;
    int64_t start_ns = 0;
    bool done = false;
  };
  std::vector<Slot> slots(static_cast<size_t>(copies));
  int64_t completions = 0;
  const std::string copy_note = copies > 1 ? " copy=" : "";
  auto start = [&](size_t i) -> bool {
    SpawnOptions so;
    so.argv = argv;
    slots[i].start_ns = p.MonotonicNanos();
    auto child = p.Spawn(so);
    if (!child.ok()) {
      std::cout << "ream-corun ended could not start '" << argv[0] << "': " << child.status().message() << " after "
                << completions << " completion(s)" << std::endl;
      return false;
    }
    slots[i].child = std::move(child).value();
    return true;
  };
  auto stop_all = [&] {
    for (auto& s : slots) {
      if (s.child && !s.done) (void)s.child->Signal(SIGTERM);
    }
    for (auto& s : slots) {
      if (s.child && !s.done) (void)s.child->Wait(std::chrono::milliseconds(5000));
    }
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!start(i)) {
      stop_all();
      return 127;
    }
  }
  std::cout << "ream-corun started pid=" << slots[0].child->pid() << (copies > 1 ? " copies=" + std::to_string(copies) : "")
            << std::endl;
  bool forwarded = false;
  size_t finished = 0;
  while (finished < slots.size()) {
    for (size_t i = 0; i < slots.size(); ++i) {
      Slot& s = slots[i];
      if (s.done) continue;
      auto e = s.child->Wait(std::chrono::milliseconds(copies > 1 ? 5 : 20));
      if (int sig = TerminationSignals::Received(); sig != 0 && !forwarded) {
        for (auto& o : slots) {
          if (o.child && !o.done) (void)o.child->Signal(sig);
        }
        forwarded = true;
      }
      if (!e.ok()) continue;
      const double seconds = static_cast<double>(p.MonotonicNanos() - s.start_ns) / 1e9;
      const bool well = !e->signaled && e->exit_code == 0 && TerminationSignals::Received() == 0;
      if (well && repeat) {
        ++completions;
        std::cout << "ream-corun completed " << completions << " seconds=" << seconds
                  << (copies > 1 ? copy_note + std::to_string(i) : "") << std::endl;
        if (!start(i)) {
          s.done = true;
          stop_all();
          return 127;
        }
        continue;
      }
      s.done = true;
      ++finished;
      if (!well || slots.size() == 1) {
        if (slots.size() > 1) stop_all();
        std::cout << "ream-corun ended " << e->Describe() << (copies > 1 ? " (copy " + std::to_string(i) + ")" : "")
                  << " after " << completions << " completion(s)" << std::endl;
        return e->ShellCode();
      }
      ++completions;  // without --repeat: each copy runs once
      std::cout << "ream-corun completed " << completions << " seconds=" << seconds << copy_note << i << std::endl;
    }
  }
  std::cout << "ream-corun ended exited with status 0 after " << completions << " completion(s)" << std::endl;
  return 0;
}

}  // namespace

void AddCorunCommand(CLI::App& app, CommandList& commands) {
  auto sched = std::make_shared<std::string>("normal");
  auto repeat = std::make_shared<bool>(false);
  auto copies = std::make_shared<int>(1);
  auto argv = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "corun", "Run a co-runner's command in a scheduling class, again after each successful end with --repeat "
               "(how ream run starts [[corunner]]s; each completion and the end are stdout lines)");
  sub->add_option("--sched", *sched, "Scheduling class: normal, batch or idle")
      ->check(CLI::IsMember({"normal", "batch", "idle"}));
  sub->add_flag("--repeat", *repeat, "Run the command again each time it exits with status 0");
  sub->add_option("--copies", *copies, "Run this many copies of the command at once (SPECrate's copies), each "
                                       "restarted in its own slot with --repeat")
      ->check(CLI::Range(1, 1024));
  sub->add_option("command", *argv, "The command and its arguments (after --)")->required();
  commands.push_back({sub, [sched, repeat, copies, argv] { return RunCorun(*sched, *repeat, *copies, *argv); }});
}

}  // namespace ream::cli
