// The partition knobs, each declared once (after fio's engines carrying their own option
// tables): its [partitions] key and stored label, its `ream exec` flag and help, the parser of
// its value text into a typed value and how that value goes into a PartitionSpec, which
// `ream doctor` probe decides whether this machine can enforce it, and what the analysis
// reads from it (the resource it limits and its amount). The spec parser, `ream exec`, the
// runner, the store loader and the analysis iterate a KnobTable; none of them names a knob.
//
// Adding a knob is adding an entry to RegisterBuiltinKnobs (knobs.cc) and, if it is enforced
// by a new kernel interface, the code that applies it (sandbox/) and its probe kind:
//   KnobTable t = BuiltinKnobs();
//   t.Add({.key = "net_latency", .flag = "--net-latency", .help = "...", .parse = ..., ...});
// A test binary does the same with a throwaway knob and passes its table along.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "partition/cgroup.h"
#include "partition/spec.h"
#include "platform/status.h"

namespace ream {

// A knob's value once parsed: a count or an amount in bytes, bits or ways (int64_t), a
// fraction (double), or a name (std::string, e.g. a device).
using KnobValue = std::variant<int64_t, double, std::string>;

// How PartitionSupport (sandbox/) finds out whether a row of `ream doctor`'s partition list
// is enforceable here. The sandbox switches on these kinds, never on a knob's name.
enum class KnobProbe {
  kCgroup,        // a cgroup controller (v1 mount and file, or v2 cgroup.controllers)
  kNode,          // network namespaces and veth pairs (ip)
  kNodeShaping,   // traffic control on the node's veth (ip and tc; htb when probed)
  kResctrlL3,     // resctrl L3 cache allocation
  kResctrlMba,    // resctrl memory bandwidth allocation
  kRelay,         // ream's in-path relay (relay/): a process of ream's, always available
  kQdisc,         // kernel qdiscs and filters: what `ream doctor` established by trying
                  // (KnobSupportRow::capabilities); without its probes, not tried
};

// One row of `ream doctor`'s "partitions" list: a way of enforcing that covers one or more
// knobs (and the placement and node, which are not knobs).
struct KnobSupportRow {
  std::string flag;  // the row's name as printed: "--cpu-quota", "--disk-*"
  KnobProbe probe = KnobProbe::kCgroup;
  // kCgroup: the controller and a file that proves it, for v1 and for v2.
  std::string v1_controller, v1_file, v2_controller, v2_file;
  // kQdisc: the capabilities (platform/capabilities.h: "tc.netem") that must all be supported,
  // and what the row would do with them.
  std::vector<std::string> capabilities;
  std::string how;
};

// What the analysis compares across partitions: a resource a knob limits (several knobs may
// limit one resource: the disk read and write rates both limit "disk_bw", the tighter wins).
struct LimitedResource {
  std::string name;           // Sensitivity::resource: "llc_ways", "disk_bw"
  std::string unit;           // of the amount, in the sensitivity's values: "ways", "B/s"
  bool lower_is_tighter = true;  // a smaller amount gives the workload less
  // `ream analyze --json`'s partition field and whether it is written as an integer.
  std::string json_field;
  bool integral = false;
  // The label generated when the store gave none: prefix + amount × scale + suffix.
  std::string label_prefix;
  double label_scale = 1;
  std::string label_suffix;
  // The cost of an allocation (the recommendation's "fewest resources"): resources with a
  // cost_rank compare in rank order; a partition that does not limit one costs
  // `unlimited_cost` of it. No rank: not part of the cost.
  std::optional<int> cost_rank;
  double unlimited_cost = std::numeric_limits<double>::infinity();
};

// How a manager (manager/) moves a knob while its tenant runs, one unit at a time: the value as
// a level, a number in the knob's own unit where more is more of the resource (cpu_quota 0.5 =
// half a CPU; cpu_idle 0 = the idle class, 1 = normal), and a level back into a value.
struct KnobMoves {
  // InvalidArgument naming `what` for a value that has no level (mem_bw in MB/s: the manager
  // moves percentages).
  std::function<Result<double>(const KnobValue&, std::string_view what)> level;
  std::function<KnobValue(double)> value;
  // The level as the knob's own text ("50%", "4", "idle"), for actions and messages.
  std::function<std::string(double)> text;
  // Writes a level to a running tenant's cgroup (the same files the tenant's partition was made
  // with). Unset for a knob that lives elsewhere (a resctrl group): `write_elsewhere` says where.
  std::function<Status(Cgroup&, double level)> write;
  std::string write_elsewhere;
  // Defaults when [[manager.resource]] gives no unit / min / max (0 / unset: it must give one):
  // a knob of two levels needs none.
  double unit = 0;
  std::optional<double> lowest, highest;
};

struct Knob {
  std::string key;   // the [partitions] key and the stored label's name: "cpu_quota"
  std::string flag;  // the `ream exec` flag ("--cpu-quota"); empty: not an exec flag
  std::string help;  // the flag's help text
  std::string flag_type = "TEXT";  // the flag's value as help shows it: "TEXT", "INT"
  bool in_spec = true;  // false: a `ream exec` flag only
  // Text -> typed value: the unit parser and the checks that need no other knob (the ranges
  // are PartitionSpec::Validate's). `what` names the key or flag for messages. Stored texts
  // are read back with it, so it keeps accepting every text it once accepted.
  std::function<Result<KnobValue>(std::string_view text, std::string_view what)> parse;
  // Puts a value that `parse` returned into the PartitionSpec.
  std::function<void(const KnobValue&, PartitionSpec*)> apply;
  // The node's link is what it shapes: a spec partition using it runs in a node.
  bool needs_node = false;
  // The KnobSupportRow (by flag) that says whether this machine can enforce it; empty: none.
  std::string support;
  // Analysis: false for a knob that qualifies others (the disk device) rather than limits.
  bool limits = true;
  // Such a knob given as a flag without a limiting knob of its support row is an error: the
  // rest of the message ("names the disk to throttle: ...").
  std::string alone_error;
  // The LimitedResource it limits; empty: a limit the analysis has no amount for (it counts
  // as limited, shown by its text).
  std::string resource;
  // Its amount in the resource's unit.
  std::function<double(const KnobValue&)> amount;
  // Set when the value decides whether it has an amount in `resource`'s unit (mem_bw: a
  // percentage has, an MB/s amount has not): false makes it a limit shown by its text.
  std::function<bool(const KnobValue&)> has_amount;
  // Set when a manager may change it on a running tenant; otherwise `fixed_while_running` says
  // why it cannot (in words a spec error can end with).
  std::optional<KnobMoves> moves;
  std::string fixed_while_running;
};

class KnobTable {
 public:
  // Appends; a key already present is replaced (a test may redefine a builtin).
  void Add(Knob knob);
  void AddResource(LimitedResource resource);
  void AddSupportRow(KnobSupportRow row);

  const std::vector<Knob>& knobs() const { return knobs_; }
  const std::vector<LimitedResource>& resources() const { return resources_; }
  const std::vector<KnobSupportRow>& support_rows() const { return support_; }
  const Knob* Find(std::string_view key) const;
  const LimitedResource* FindResource(std::string_view name) const;
  // The keys [partitions] accepts, in table order.
  std::vector<std::string> SpecKeys() const;

 private:
  std::vector<Knob> knobs_;
  std::vector<LimitedResource> resources_;
  std::vector<KnobSupportRow> support_;
};

// Adds ream's knobs, resources and support rows to `table`.
void RegisterBuiltinKnobs(KnobTable& table);
// A table holding RegisterBuiltinKnobs' entries (built once, never changed).
const KnobTable& BuiltinKnobs();

// One `ream exec` flag of a knob, in table order (what `ream exec --help` lists).
struct KnobFlag {
  std::string flag;
  std::string help;
  std::string type;  // "TEXT", "INT"
  bool needs_node = false;
  std::string key;  // the knob's
};
std::vector<KnobFlag> ExecFlags(const KnobTable& table);

// The knobs given as flag texts (key -> text; empty texts are unset) applied to `spec`.
// InvalidArgument "--memory: 'lots' is not a size ..." naming the flag, or naming a qualifying
// flag given without a limit it qualifies (Knob::alone_error).
Status ApplyFlagTexts(const KnobTable& table, const std::map<std::string, std::string>& texts,
                      PartitionSpec* spec);

}  // namespace ream
