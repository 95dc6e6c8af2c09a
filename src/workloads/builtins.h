// The workload seam: ream's built-in servers (`ream serve NAME`), each declared once — its
// name, what it stands for, its own options with their defaults, and how those options make
// its request handlers. `ream serve` registers one subcommand per entry and the spec's
// `[workload] builtin` accepts the entries' names; neither names a workload. Adding a
// workload is adding an entry to RegisterBuiltinWorkloads (builtins.cc).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/status.h"
#include "workloads/server.h"

namespace ream {

// One option of a workload's own (besides --port, --threads and --bind, which every one has).
struct WorkloadOption {
  std::string flag;           // "--service"
  std::string help;
  std::string default_value;  // "" with `required`
  bool required = false;
};

// A server that is not ream's own, run by a builtin in its place (stream's nginx): started on
// a port and stopped at the end by `ream serve`, which prints the readiness line for it.
class ExternalServer {
 public:
  virtual ~ExternalServer() = default;
  virtual int port() const = 0;
  // nullopt while it runs; how it ended once it has ("exited with status 1: <its log>").
  virtual std::optional<std::string> Exited() = 0;
  // Stops it and removes what it made at start (its run directory). The first error.
  virtual Status Stop() = 0;
};

// What a workload's options made: its handlers, and the detail its readiness line carries
// ("service=exp:100us"). A builtin that runs a server of its own sets `external` instead of
// `handlers`: `ream serve` calls it with the port, threads and address it was given.
struct WorkloadServer {
  HandlerFactory handlers;
  std::string detail;
  std::function<Result<std::unique_ptr<ExternalServer>>(const ServerOptions&)> external;
};

struct BuiltinWorkload {
  std::string name;  // `ream serve NAME`, `[workload] builtin = "NAME"`
  std::string help;
  // The protocol its clients speak (protocol/registry.h): ream's own for the servers on
  // workloads/server.h; "http" for one that runs an HTTP server (stream's nginx).
  std::string protocol = "ream";
  std::vector<WorkloadOption> options;
  // From the options' values (flag -> text, every option present, defaults filled in):
  // InvalidArgument naming the flag for a bad value.
  std::function<Result<WorkloadServer>(const std::map<std::string, std::string>& values)> make;
};

class WorkloadTable {
 public:
  // InvalidArgument when the name is taken.
  Status Add(BuiltinWorkload w);
  const BuiltinWorkload* Find(const std::string& name) const;
  const std::vector<BuiltinWorkload>& all() const { return workloads_; }
  std::vector<std::string> Names() const;

 private:
  std::vector<BuiltinWorkload> workloads_;
};

// Adds ream's built-in workloads (synthetic, kv, xapian, dnn) to `table`.
void RegisterBuiltinWorkloads(WorkloadTable& table);
// A table holding the built-ins, built once.
const WorkloadTable& BuiltinWorkloads();

}  // namespace ream
