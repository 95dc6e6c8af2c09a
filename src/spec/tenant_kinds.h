// The kinds of tenant a [[corunner]] can be, one row each (fio's ioengine_ops): the spec key
// that chooses it and the keys it owns, how it starts, how its readiness is seen, what its
// throughput is and in which unit, and its capability flags. Spec parsing, preflight, the
// co-runners' runtime and the stored description ask the row, never a kind's name; a new kind
// is a row (a test adds one of its own: TenantKindTable::Add).
//
//   const TenantKind* k = BuiltinTenantKinds().Chosen(table);   // the row whose key is given
//   if (k->completes) ...                                       // restarted by default
//   argv = k->argv(corunner, {ream, port, threads});
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "platform/status.h"

namespace ream {

struct CorunnerSpec;
class TomlSection;

// How a tenant says it is ready once `ream corun` has started its program.
enum class TenantReadiness {
  // It runs: ready at the spec's ready_line when one is given (or the row's default), else
  // once it has run through its settling time; with a load of its own and no line, once it
  // accepts a connection on its port.
  kRuns,
  // It picks its own port and prints it: "ready HOST:PORT ..." (ream's servers).
  kPrintsPort,
};

// What a start of the tenant's program is given.
struct TenantStart {
  std::string ream;  // this ream's binary (on another host, the agent puts its own)
  int port = 0;      // the port of "{port}" (a server under a load of its own), 0 otherwise
  int threads = 1;   // its CPUs' count: a server's worker threads
  // It is reached from outside its network namespace or host (a node, another host): a server
  // of ream's listens on every address, not on loopback only.
  bool listen_everywhere = false;
};

struct TenantKind {
  // The spec key that chooses the kind, which also names it in messages and the stored spec:
  // "command", "builtin", "batch", "pressure".
  std::string key;
  // What its key takes, for the message listing the kinds: "an argv array".
  std::string takes;
  // The further keys only it accepts ("args", "batch_seconds", "intensity").
  std::vector<std::string> own_keys;

  // Capability flags: the core reads these, never `key`.
  bool completes = false;    // runs to completion: restarted by default, counted in completions/s
  bool serves = false;       // a server: may carry a load of its own ([corunner.load])
  bool needs_load = false;   // refused without a load of its own (an idle server is no neighbour)
  bool fills_port = false;   // with a load, its argv's "{port}" is filled with a free port
  bool finds_program = false;  // its argv[0] is looked up on its host before any run
  // One of ream's own servers, which a VM guest's image carries (sandbox = "vm"); Debian's
  // programs (a command's, a batch program's) are not in it.
  bool runs_in_vm = false;
  TenantReadiness readiness = TenantReadiness::kRuns;
  std::string default_ready_line;  // kRuns: the line when the spec gives none ("" : settling)
  // Its throughput without a load of its own (with one: the QPS it served), and the unit:
  // "completions/s" for a kind that completes, else "CPU-s/s" (the CPU time it got a second).
  std::string throughput_unit;

  // Reads the kind's keys (its own key included) from `s` into `c`; `me` prefixes messages
  // ("x.toml:12: [[corunner]] 'stream': "). InvalidArgument naming the key otherwise.
  Status (*parse)(const TomlSection& s, const std::string& me, CorunnerSpec* c) = nullptr;
  // The argv of its program (what `ream corun` runs).
  std::vector<std::string> (*argv)(const CorunnerSpec& c, const TenantStart& at) = nullptr;
  // Before any run, on this host (a batch program resolved); null: nothing to check. The error
  // names what is missing and how to get it.
  Status (*check)(Platform& p, const CorunnerSpec& c) = nullptr;
  // Before each start, on this host (a batch program's helper published where the tenant's user
  // reaches it); null: nothing.
  Status (*prepare)(Platform& p, const CorunnerSpec& c) = nullptr;
  // The protocol its server speaks when the kind knows it (a builtin's), so a load of its own
  // need not name one; null or "": the spec's [corunner.load] protocol says.
  std::string (*speaks)(const CorunnerSpec& c) = nullptr;
  // Its own keys in a JSON description (the stored spec, the run's tenants); null: none.
  void (*describe)(const CorunnerSpec& c, nlohmann::json* j) = nullptr;
  // What it runs, in a few words, for tables such as the dry run's placement ("xz",
  // "cpu 50%", "memcached"); null: nothing beyond the kind's key.
  std::string (*runs)(const CorunnerSpec& c) = nullptr;

  // The kind's key and what it runs: "batch xz", "pressure cpu 50%".
  std::string Label(const CorunnerSpec& c) const;
};

// The rows, in the order messages list them.
class TenantKindTable {
 public:
  // Adds a row (its key must be new); the table keeps it at a stable address.
  void Add(TenantKind k);
  const TenantKind* Find(std::string_view key) const;
  // Every row's key and own keys: what a [[corunner]] may hold beside the common keys.
  std::vector<std::string> SpecKeys() const;
  // "'command' (an argv array), 'batch' (...) and 'pressure' (...)".
  std::string Choices() const;
  const std::vector<const TenantKind*>& rows() const { return order_; }

 private:
  std::vector<std::unique_ptr<TenantKind>> rows_;
  std::vector<const TenantKind*> order_;
};

// ream's kinds: command, batch, pressure, builtin.
const TenantKindTable& BuiltinTenantKinds();

}  // namespace ream
