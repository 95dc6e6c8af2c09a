// `ream keep-awake --cpus LIST`: keeps CPUs out of idle (platform/keep_awake.h) until SIGINT or
// SIGTERM. Where the kernel cannot poll the workload's CPUs in idle, `ream run --keep-awake`
// starts it inside the workload's CPU cgroup, where the workload's own threads preempt its
// SCHED_IDLE pollers at once (across cgroups, cgroup v1's scheduler lets them run on for
// milliseconds).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "platform/keep_awake.h"
#include "platform/net.h"
#include "platform/platform.h"
#include "platform/poller.h"

namespace ream::cli {
namespace {

int RunKeepAwake(const std::string& list) {
  auto cpus = ParseCpuList(list);
  if (!cpus.ok()) {
    std::cerr << "ream keep-awake: --cpus: " << cpus.status().message() << "\n";
    return 2;
  }
  auto signals = net::BlockTerminationSignals();
  if (!signals.ok()) {
    std::cerr << "ream keep-awake: " << signals.status().message() << "\n";
    return 1;
  }
  auto awake = KeepAwake::Start(*cpus);
  if (!awake.ok()) {
    std::cerr << "ream keep-awake: " << awake.status().message() << "\n";
    return ExitCodeFor(awake.status());
  }
  std::cout << "ready keep-awake cpus=" << list << ": " << (*awake)->Describe() << std::endl;
  auto poller = net::Poller::Create();
  if (!poller.ok() || !poller->Add(signals->get(), EPOLLIN, 1).ok()) {
    std::cerr << "ream keep-awake: cannot wait for signals\n";
    return 1;
  }
  epoll_event ev[1];
  Result<int> n = 0;
  while ((n = poller->Wait(ev, 1, -1)).ok() && *n == 0) {
  }
  if (!n.ok()) {
    std::cerr << "ream keep-awake: waiting for a signal: " << n.status().message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddKeepAwakeCommand(CLI::App& app, CommandList& commands) {
  auto cpus = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "keep-awake", "Keep CPUs out of idle until SIGINT/SIGTERM: the kernel's idle polling where their idle driver "
                    "can poll, else SCHED_IDLE pollers (REAM_KEEP_AWAKE=pollers: always pollers)");
  sub->add_option("--cpus", *cpus, "The CPUs (0,2-3)")->required();
  commands.push_back({sub, [cpus] { return RunKeepAwake(*cpus); }});
}

}  // namespace ream::cli
