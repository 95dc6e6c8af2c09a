// Starting a run's workload: its command line for the scenario (a builtin `ream serve`, or
// the spec's command with "{port}" filled in), its sandbox with the partition, and the wait
// until it is ready (a "ready HOST:PORT" line, a line of the spec's, or an accepted
// connection), with the workload's last output in the message when it never is.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiment/network_path.h"
#include "experiment/plan.h"
#include "experiment/preflight.h"
#include "spec/spec.h"
#include "platform/platform.h"
#include "sandbox/sandbox.h"

namespace ream {

struct LaunchedWorkload {
  std::unique_ptr<Sandbox> sandbox;
  int port = 0;  // where it listens, at sandbox->address()
  // The relay of the LogGP knobs L, g, G (experiment/network_path.h), in the path when one of
  // them is set; null otherwise, and the generator then connects to the workload itself.
  std::unique_ptr<Sandbox> relay;
  int relay_port = 0;      // at 127.0.0.1 (on every address with client nodes)
  std::string relay_what;  // its command line, for messages
  NetworkPath network;     // the knobs' methods and calibration, stored with every point

  // Where the generator connects: the relay when it is in the path, else the workload.
  std::string target_host() const { return relay ? "127.0.0.1" : sandbox->address(); }
  int target_port() const { return relay ? relay_port : port; }
  // Stops the relay (if any), then the workload; the first error.
  Status Stop();
};

// The workload's argv for `run` ("{port}" replaced by `port`).
// The port in a builtin server's readiness line, "ready HOST:PORT ..." (the port it picked with
// --port 0); 0 when the line has none.
int BuiltinReadyPort(const std::string& line);

std::vector<std::string> WorkloadArgv(const ExperimentSpec& spec, const Prepared& prep, const PlannedRun& run,
                                      int port);

// Starts the workload and waits until it is ready; with L, g or G set, starts the relay in front
// of it on the generator's CPUs (LaunchedWorkload::relay). Unavailable (it exited first, with its last
// output), Timeout (never ready within workload.ready_timeout), Cancelled (`interrupted`
// turned true), or the sandbox's error; nothing is left running on failure.
Result<LaunchedWorkload> StartWorkload(Platform& p, SandboxKind& sandboxes, const ExperimentSpec& spec,
                                       const Prepared& prep, const PlannedRun& run, const std::string& state_dir,
                                       const std::function<bool()>& interrupted);

}  // namespace ream
