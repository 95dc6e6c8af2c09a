// ream's partition knobs: one entry each (partition/knobs.h says what an entry holds).
#include "partition/knobs.h"

#include <chrono>
#include <cstdlib>

#include "partition/cgroup_knobs.h"
#include "platform/platform.h"
#include "platform/text.h"

namespace ream {
namespace {

// A whole positive number ("4"); `what_it_is` completes "must be a positive ...".
Result<KnobValue> PositiveInteger(std::string_view text, const char* what_it_is) {
  std::string t(text);
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str() || *end != '\0' || v <= 0) {
    return InvalidArgument(std::string("must be a positive ") + what_it_is);
  }
  return KnobValue(static_cast<int64_t>(v));
}

Result<KnobValue> Percent(std::string_view text, std::string_view what) {
  REAM_ASSIGN_OR_RETURN(double v, ParsePercent(text, what));
  return KnobValue(v);
}

template <Result<int64_t> (*Parse)(std::string_view)>
Result<KnobValue> Amount(std::string_view text, std::string_view) {
  REAM_ASSIGN_OR_RETURN(int64_t v, Parse(text));
  return KnobValue(v);
}

// A LogGP time ("200us", "8ns", "0"): nanoseconds as an int64_t. A negative time is refused
// here, naming the knob, rather than as "not a duration".
Result<KnobValue> NetTime(std::string_view text, std::string_view what) {
  std::string t = Trim(text);
  if (!t.empty() && t[0] == '-') {
    return InvalidArgument(std::string(what) + " must not be negative ('" + t + "')");
  }
  auto d = ParseDuration(t);
  if (!d.ok()) return InvalidArgument(std::string(what) + ": " + d.status().message());
  return KnobValue(static_cast<int64_t>(d->count()));
}

int64_t Int(const KnobValue& v) { return std::get<int64_t>(v); }
double Real(const KnobValue& v) { return std::get<double>(v); }

// A manager's view of a knob whose value is a fraction written as a percentage (cpu_quota,
// mem_bw): the level is the fraction.
KnobMoves FractionMoves() {
  return {.level = [](const KnobValue& v, std::string_view what) -> Result<double> {
            if (!std::holds_alternative<double>(v)) {
              return InvalidArgument(std::string(what) + " is moved as a percentage (\"50%\"), not an amount");
            }
            return Real(v);
          },
          .value = [](double level) { return KnobValue(level); },
          .text = [](double level) { return Fmt("%.4g%%", level * 100); }};
}

// A manager's view of a knob counted in whole numbers (cpu_weight, llc_ways).
KnobMoves CountMoves(double unit) {
  return {.level = [](const KnobValue& v, std::string_view) -> Result<double> {
            return static_cast<double>(Int(v));
          },
          .value = [](double level) { return KnobValue(static_cast<int64_t>(level + 0.5)); },
          .text = [](double level) { return Fmt("%.0f", level); },
          .unit = unit};
}

// Where a manager's move of a cache or bandwidth share goes: the tenant's resctrl group, whose
// schemata a running tenant's manager does not write yet.
constexpr const char* kResctrlMove =
    "it lives in the tenant's resctrl group's schemata, which ream writes when the group is made and a manager "
    "does not rewrite yet";

// Why a manager cannot move what is fixed when the tenant starts.
constexpr const char* kDiskFixed =
    "ream writes a disk throttle once, when the tenant's cgroup is made, and has no live change of it";
constexpr const char* kRelayFixed =
    "the relay in front of the tenant takes L, g and G on its command line when it starts";

}  // namespace

void KnobTable::Add(Knob knob) {
  for (auto& k : knobs_) {
    if (k.key == knob.key) {
      k = std::move(knob);
      return;
    }
  }
  knobs_.push_back(std::move(knob));
}

void KnobTable::AddResource(LimitedResource resource) {
  for (auto& r : resources_) {
    if (r.name == resource.name) {
      r = std::move(resource);
      return;
    }
  }
  resources_.push_back(std::move(resource));
}

void KnobTable::AddSupportRow(KnobSupportRow row) {
  for (auto& r : support_) {
    if (r.flag == row.flag) {
      r = std::move(row);
      return;
    }
  }
  support_.push_back(std::move(row));
}

const Knob* KnobTable::Find(std::string_view key) const {
  for (const auto& k : knobs_) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

const LimitedResource* KnobTable::FindResource(std::string_view name) const {
  for (const auto& r : resources_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::vector<std::string> KnobTable::SpecKeys() const {
  std::vector<std::string> keys;
  for (const auto& k : knobs_) {
    if (k.in_spec) keys.push_back(k.key);
  }
  return keys;
}

void RegisterBuiltinKnobs(KnobTable& t) {
  // The rows of `ream doctor`'s partition list, in the order it prints them.
  t.AddSupportRow({"--cpus", KnobProbe::kCgroup, "cpuset", "cpuset.cpus", "cpuset", "cpuset.cpus"});
  t.AddSupportRow({"--cpu-quota", KnobProbe::kCgroup, "cpu", "cpu.cfs_quota_us", "cpu", "cpu.max"});
  t.AddSupportRow({"--memory", KnobProbe::kCgroup, "memory", "memory.limit_in_bytes", "memory", "memory.max"});
  t.AddSupportRow({"--disk-*", KnobProbe::kCgroup, "blkio", "blkio.throttle.read_bps_device", "io", "io.max"});
  t.AddSupportRow({"--node", KnobProbe::kNode});
  t.AddSupportRow({"--net-rate", KnobProbe::kNodeShaping});
  t.AddSupportRow({"--llc-ways", KnobProbe::kResctrlL3});
  t.AddSupportRow({"--mem-bw", KnobProbe::kResctrlMba});
  // The LogGP knobs (second seed). The relay applies L, g and G on every machine; the kernel's
  // packet-level methods are listed for what `ream doctor` finds (they apply no knob yet).
  t.AddSupportRow({.flag = "relay", .probe = KnobProbe::kRelay});
  t.AddSupportRow({.flag = "netem", .probe = KnobProbe::kQdisc, .capabilities = {"tc.netem"},
                   .how = "netem delay (L) and rate (G) on the node's veth"});
  t.AddSupportRow({.flag = "fq", .probe = KnobProbe::kQdisc, .capabilities = {"tc.fq"},
                   .how = "fq as root qdisc: departs packets at their skb->tstamp (earliest departure time)"});
  t.AddSupportRow({.flag = "clsact+BPF", .probe = KnobProbe::kQdisc, .capabilities = {"tc.clsact", "tc.cls_bpf"},
                   .how = "a BPF program on clsact egress setting skb->tstamp (EDT); needs fq to delay"});

  // The analysis's resources, in the order its sensitivity lists them. The LogGP ones (second
  // seed) have no knob yet: they are listed as "not measured" until one limits them.
  t.AddResource({.name = "llc_ways", .unit = "ways", .json_field = "llc_ways", .integral = true,
                 .label_prefix = "llc=", .cost_rank = 1});
  t.AddResource({.name = "mem_bw", .unit = "%", .json_field = "mem_bw_percent", .label_prefix = "membw=",
                 .label_suffix = "%", .cost_rank = 2});
  t.AddResource({.name = "disk_bw", .unit = "B/s", .json_field = "disk_bps", .label_prefix = "disk=",
                 .label_suffix = "B/s", .cost_rank = 3});
  t.AddResource({.name = "net_bw", .unit = "B/s", .json_field = "net_bps", .label_prefix = "net=",
                 .label_suffix = "B/s", .cost_rank = 4});
  // A partition without a quota has all of its CPUs: 1.0 of them.
  t.AddResource({.name = "cpu_quota", .unit = "of the CPUs", .json_field = "cpu_quota", .label_prefix = "quota=",
                 .label_scale = 100, .label_suffix = "%", .cost_rank = 0, .unlimited_cost = 1.0});
  t.AddResource({.name = "memory", .unit = "bytes", .json_field = "memory_bytes", .label_prefix = "mem=",
                 .label_suffix = "B"});
  // The LogGP ones (second seed): more of them gives the workload less, so not lower-is-tighter;
  // they are not part of an allocation's cost.
  t.AddResource({.name = "net_latency", .unit = "us", .lower_is_tighter = false, .json_field = "net_latency_us",
                 .label_prefix = "L=", .label_suffix = "us"});
  t.AddResource({.name = "net_overhead", .unit = "us", .lower_is_tighter = false,
                 .json_field = "net_overhead_us", .label_prefix = "o=", .label_suffix = "us"});
  t.AddResource({.name = "net_gap", .unit = "us", .lower_is_tighter = false, .json_field = "net_gap_us",
                 .label_prefix = "g=", .label_suffix = "us"});
  t.AddResource({.name = "net_per_byte", .unit = "ns/B", .lower_is_tighter = false,
                 .json_field = "net_per_byte_ns", .label_prefix = "G=", .label_suffix = "ns/B"});

  // The knobs, in the order `ream exec --help` and [partitions]' "known keys" list them.
  t.Add({.key = "cpu_quota", .flag = "--cpu-quota", .help = "CPU time in percent of one CPU (50%, 150%)",
         .parse = Percent,
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->cpu_quota = Real(v); },
         .support = "--cpu-quota", .resource = "cpu_quota", .amount = Real, .moves = [] {
           KnobMoves m = FractionMoves();
           m.write = [](Cgroup& cg, double level) { return ApplyCpuQuota(cg, level); };
           return m;
         }()});
  t.Add({.key = "cpu_weight", .flag = "--cpu-weight",
         .help = "Relative CPU weight under contention, 1..10000 (default: the kernel's 100)", .flag_type = "INT",
         .in_spec = false,
         .parse = [](std::string_view text, std::string_view) { return PositiveInteger(text, "integer"); },
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->cpu_weight = static_cast<int>(Int(v)); },
         .moves = [] {
           KnobMoves m = CountMoves(0);
           m.lowest = 1;  // the kernel's bounds of cpu.weight
           m.highest = 10000;
           m.write = [](Cgroup& cg, double level) { return ApplyCpuWeight(cg, static_cast<int>(level + 0.5)); };
           return m;
         }()});
  // The scheduling class of the tenant's cgroup against its siblings (cpu.idle): the best-effort
  // tier that Heracles' "disable the best-effort tasks" comes to on a machine whose cores cannot
  // be taken away. Not a [partitions] key: a co-runner gives it as sched = "idle"; a manager
  // moves it between its two levels.
  t.Add({.key = "cpu_idle",
         .in_spec = false,
         .parse = [](std::string_view text, std::string_view what) -> Result<KnobValue> {
           if (text == "idle" || text == "normal") return KnobValue(std::string(text));
           return InvalidArgument(std::string(what) + ": '" + std::string(text) +
                                  "' is not a scheduling class of a cgroup (\"idle\" or \"normal\")");
         },
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->cpu_idle = std::get<std::string>(v) == "idle"; },
         .moves = KnobMoves{
             .level = [](const KnobValue& v, std::string_view) -> Result<double> {
               return std::get<std::string>(v) == "idle" ? 0.0 : 1.0;
             },
             .value = [](double level) { return KnobValue(std::string(level < 0.5 ? "idle" : "normal")); },
             .text = [](double level) { return std::string(level < 0.5 ? "idle" : "normal"); },
             .write = [](Cgroup& cg, double level) { return ApplyCpuIdle(cg, level < 0.5); },
             .unit = 1,
             .lowest = 0,
             .highest = 1}});
  t.Add({.key = "memory", .flag = "--memory", .help = "Memory limit (512M, 1G); exceeding it is an OOM kill",
         .parse = Amount<ParseBytes>,
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->memory_bytes = Int(v); },
         .support = "--memory", .resource = "memory",
         .amount = [](const KnobValue& v) { return static_cast<double>(Int(v)); },
         .fixed_while_running = "a limit lowered under what the tenant holds reclaims or OOM-kills it, a cost "
                                "its throughput in one window does not show"});
  auto disk_bps = [](std::optional<int64_t> PartitionSpec::*field) {
    return [field](const KnobValue& v, PartitionSpec* s) { s->*field = Int(v); };
  };
  auto bytes_per_s = [](const KnobValue& v) { return static_cast<double>(Int(v)); };
  t.Add({.key = "disk_read_bps", .flag = "--disk-read-bps", .help = "Disk read bandwidth limit (20M = 20 MiB/s)",
         .parse = Amount<ParseBytesPerSecond>, .apply = disk_bps(&PartitionSpec::disk_read_bps),
         .support = "--disk-*", .resource = "disk_bw", .amount = bytes_per_s, .fixed_while_running = kDiskFixed});
  t.Add({.key = "disk_write_bps", .flag = "--disk-write-bps", .help = "Disk write bandwidth limit",
         .parse = Amount<ParseBytesPerSecond>, .apply = disk_bps(&PartitionSpec::disk_write_bps),
         .support = "--disk-*", .resource = "disk_bw", .amount = bytes_per_s, .fixed_while_running = kDiskFixed});
  auto iops = [](std::string_view text, std::string_view) { return PositiveInteger(text, "integer"); };
  t.Add({.key = "disk_read_iops", .flag = "--disk-read-iops", .help = "Disk read IOPS limit", .flag_type = "INT", .parse = iops,
         .apply = disk_bps(&PartitionSpec::disk_read_iops), .support = "--disk-*", .fixed_while_running = kDiskFixed});
  t.Add({.key = "disk_write_iops", .flag = "--disk-write-iops", .help = "Disk write IOPS limit", .flag_type = "INT", .parse = iops,
         .apply = disk_bps(&PartitionSpec::disk_write_iops), .support = "--disk-*", .fixed_while_running = kDiskFixed});
  t.Add({.key = "disk_device", .flag = "--disk-device",
         .help = "Disk to throttle: MAJ:MIN, /dev/NAME or a path on it (default: the disk of the current "
                 "directory)",
         .parse = [](std::string_view text, std::string_view) -> Result<KnobValue> {
           return KnobValue(std::string(text));
         },
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->disk_device = std::get<std::string>(v); },
         .support = "--disk-*", .limits = false,
         .alone_error = "names the disk to throttle: give a --disk-* limit too",
         .fixed_while_running = "it names the disk the throttles apply to and limits nothing"});
  t.Add({.key = "net_rate", .flag = "--net-rate", .help = "Shape the node's link, both directions (100mbit)",
         .parse = Amount<ParseBitRate>,
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->net_rate_bps = Int(v); },
         .needs_node = true, .support = "--net-rate", .resource = "net_bw",
         .amount = [](const KnobValue& v) { return static_cast<double>(Int(v)) / 8; },
         .fixed_while_running = "the node's link is shaped once, when the node is made"});
  t.Add({.key = "llc_ways", .flag = "--llc-ways", .help = "Last-level-cache ways (resctrl L3 CAT)", .flag_type = "INT",
         .parse = [](std::string_view text, std::string_view) { return PositiveInteger(text, "number of ways"); },
         .apply = [](const KnobValue& v, PartitionSpec* s) { s->llc_ways = static_cast<int>(Int(v)); },
         .support = "--llc-ways", .resource = "llc_ways",
         .amount = [](const KnobValue& v) { return static_cast<double>(Int(v)); }, .moves = [] {
           KnobMoves m = CountMoves(1);
           m.write_elsewhere = kResctrlMove;
           return m;
         }()});
  // A percentage (a double) or, where the resctrl mount takes it (mba_MBps, AMD), an amount in
  // MB/s (an int64_t): "50%", "4000MBps".
  t.Add({.key = "mem_bw", .flag = "--mem-bw",
         .help = "Memory bandwidth (resctrl MBA): a percentage (50%) or MB/s (4000MBps, with the mba_MBps "
                 "mount option or on AMD)",
         .parse = [](std::string_view text, std::string_view what) -> Result<KnobValue> {
           auto mbps = ParseMegabytesPerSecond(text);
           if (mbps.ok()) return KnobValue(*mbps);
           if (mbps.status().code() != StatusCode::kNotFound) return mbps.status();
           auto pct = Percent(text, what);
           if (!pct.ok()) {
             return InvalidArgument(std::string(what) + ": '" + std::string(text) +
                                    "' is neither a percentage (50%) nor MB/s (4000MBps)");
           }
           return pct;
         },
         .apply = [](const KnobValue& v, PartitionSpec* s) {
           if (std::holds_alternative<int64_t>(v)) {
             s->mem_bw_mbps = Int(v);
           } else {
             s->mem_bw_fraction = Real(v);
           }
         },
         .support = "--mem-bw", .resource = "mem_bw",
         .amount = [](const KnobValue& v) { return Real(v) * 100; },
         .has_amount = [](const KnobValue& v) { return std::holds_alternative<double>(v); },
         .moves = [] {
           KnobMoves m = FractionMoves();
           m.write_elsewhere = kResctrlMove;
           return m;
         }()});
  // LogGP (second seed). L, g and G are applied by the relay (relay/), in the path between the
  // generator and the workload; o by the workload's own sockets (not the relay's: it must be
  // charged to the workload's CPUs).
  auto net_time = [](std::optional<std::chrono::nanoseconds> PartitionSpec::*field) {
    return [field](const KnobValue& v, PartitionSpec* s) { s->*field = std::chrono::nanoseconds(Int(v)); };
  };
  auto in_us = [](const KnobValue& v) { return static_cast<double>(Int(v)) / 1e3; };
  t.Add({.key = "net_latency", .flag = "--net-latency",
         .help = "LogGP L: one-way delay added to every message, both directions (200us)",
         .parse = NetTime, .apply = net_time(&PartitionSpec::net_latency), .support = "relay",
         .resource = "net_latency", .amount = in_us, .fixed_while_running = kRelayFixed});
  t.Add({.key = "net_overhead", .flag = "--net-overhead",
         .help = "LogGP o: CPU time the workload spends per message sent and received (20us)",
         .parse = NetTime, .apply = net_time(&PartitionSpec::net_overhead), .resource = "net_overhead",
         .amount = in_us,
         .fixed_while_running = "the workload's preloaded library reads o once, when the workload starts"});
  t.Add({.key = "net_gap", .flag = "--net-gap",
         .help = "LogGP g: minimum interval between consecutive messages on a connection (50us)",
         .parse = NetTime, .apply = net_time(&PartitionSpec::net_gap), .support = "relay",
         .resource = "net_gap", .amount = in_us, .fixed_while_running = kRelayFixed});
  t.Add({.key = "net_per_byte", .flag = "--net-per-byte",
         .help = "LogGP G: time per byte, a bandwidth limit at message granularity (8ns = 125 MB/s)",
         .parse = NetTime, .apply = net_time(&PartitionSpec::net_per_byte), .support = "relay",
         .resource = "net_per_byte", .amount = [](const KnobValue& v) { return static_cast<double>(Int(v)); },
         .fixed_while_running = kRelayFixed});
}

const KnobTable& BuiltinKnobs() {
  // Built on first use and immutable afterwards: no static constructor, no mutable global.
  static const KnobTable table = [] {
    KnobTable t;
    RegisterBuiltinKnobs(t);
    return t;
  }();
  return table;
}

std::vector<KnobFlag> ExecFlags(const KnobTable& table) {
  std::vector<KnobFlag> out;
  for (const auto& k : table.knobs()) {
    if (!k.flag.empty()) out.push_back({k.flag, k.help, k.flag_type, k.needs_node, k.key});
  }
  return out;
}

Status ApplyFlagTexts(const KnobTable& table, const std::map<std::string, std::string>& texts,
                      PartitionSpec* spec) {
  for (const auto& k : table.knobs()) {
    auto it = texts.find(k.key);
    if (k.flag.empty() || it == texts.end() || it->second.empty()) continue;
    auto v = k.parse(it->second, k.flag);
    if (!v.ok()) {
      const std::string& m = v.status().message();
      return InvalidArgument(m.rfind(k.flag, 0) == 0 ? m : k.flag + ": " + m);
    }
    k.apply(*v, spec);
  }
  auto given = [&](const Knob& k) {
    auto it = texts.find(k.key);
    return !k.flag.empty() && it != texts.end() && !it->second.empty();
  };
  for (const auto& k : table.knobs()) {
    if (k.limits || !given(k)) continue;
    bool qualifies_one = false;
    for (const auto& o : table.knobs()) qualifies_one = qualifies_one || (o.limits && o.support == k.support && given(o));
    if (!qualifies_one) return InvalidArgument(k.flag + " " + k.alone_error);
  }
  return Status::Ok();
}

}  // namespace ream
