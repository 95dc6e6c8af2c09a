// The workload seam: ream's built-in servers (`ream serve NAME`), each declared once — its
// name, what it stands for, its own options with their defaults, and how those options make
// its request handlers. `ream serve` registers one subcommand per entry and the spec's
// `[workload] builtin` accepts the entries' names; neither names a workload. Adding a
// workload is adding an entry to RegisterBuiltinWorkloads (builtins.cc).
#pragma once

#include <functional>
#include <map>
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

// What a workload's options made: its handlers, and the detail its readiness line carries
// ("service=exp:100us").
struct WorkloadServer {
  HandlerFactory handlers;
  std::string detail;
};

struct BuiltinWorkload {
  std::string name;  // `ream serve NAME`, `[workload] builtin = "NAME"`
  std::string help;
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
