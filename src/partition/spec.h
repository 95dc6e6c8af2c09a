// What part of the machine a sandbox gets: one aggregate with a documented default for each
// knob, and the parsers the CLI and the experiment spec share for its units.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/status.h"

namespace ream {

struct PartitionSpec {
  // Placement: "" (default) leaves the CPUs unrestricted; a scenario "1-ST", "2-ST",
  // "2-SMT", "N-ST", "N-SMT" resolved against the topology avoiding the generator's
  // reserved CPUs (partition/placement.h); or an explicit CPU list "0,2-3".
  std::string cpus;
  // CPU time as a number of CPUs: 0.5 = "50%" of one CPU, 1.5 = "150%". Unset: no quota.
  std::optional<double> cpu_quota;
  // Relative CPU weight under contention, 1..10000 (v2 cpu.weight; v1 cpu.shares =
  // weight * 1024 / 100). Unset: the kernel's default (100).
  std::optional<int> cpu_weight;
  // The cgroup's tasks as one SCHED_IDLE entity against its sibling cgroups (cpu.idle = 1,
  // Linux 5.15+, v1 and v2): the best-effort tier for a tenant in a cgroup of its own. A task's
  // own SCHED_IDLE counts only against the tasks of its cgroup; across cgroups the scheduler
  // shares the CPU between the groups by weight, so a co-runner at sched = "idle" in its own
  // sandbox needs this to yield to the subject (docs/colocation.md).
  bool cpu_idle = false;
  // Memory limit in bytes (v1 memory.limit_in_bytes and memsw, v2 memory.max with
  // memory.swap.max = 0). A process exceeding it is OOM-killed. Unset: no limit.
  std::optional<int64_t> memory_bytes;
  // Disk throttling of one block device (v1 blkio.throttle.*, v2 io.max). Unset: none.
  std::optional<int64_t> disk_read_bps, disk_write_bps;
  std::optional<int64_t> disk_read_iops, disk_write_iops;
  // The device to throttle: "MAJ:MIN", a /dev path, or any file/directory path whose
  // filesystem's disk is meant. "" (default): the disk holding the working directory.
  std::string disk_device;
  // Run in a network namespace of its own ("node") joined to the host by a veth pair.
  bool node = false;
  // Shape both directions of the node's link to this many bits/s (htb). Requires node.
  std::optional<int64_t> net_rate_bps;
  // LLC ways (resctrl L3 CAT) and memory bandwidth as a fraction of the maximum (0.5 =
  // "50%", resctrl MBA). Unset: all ways, full bandwidth.
  std::optional<int> llc_ways;
  // Which llc_ways ways, per L3 domain (cache id -> capacity bitmask): the run's allocation
  // among its tenants (partition/resctrl.h AllocateL3Ways), so tenants that each ask for ways
  // hold disjoint ones. Empty: the sandbox takes the lowest free block (ChooseL3Mask).
  std::map<int, uint64_t> llc_masks;
  std::optional<double> mem_bw_fraction;
  // Memory bandwidth as an amount in MB/s ("4000MBps"): on a resctrl mount with mba_MBps, or
  // converted to AMD's 1/8 GB/s units; refused where the mount takes percentages only. At most
  // one of mem_bw_fraction and mem_bw_mbps is set.
  std::optional<int64_t> mem_bw_mbps;
  // LogGP network knobs (the second seed). Unset: not applied. L is added one way, in both
  // directions; o is CPU time the workload spends per message sent and per message received;
  // g is the minimum interval between consecutive messages on a connection; G is time per byte.
  std::optional<std::chrono::nanoseconds> net_latency;   // L
  std::optional<std::chrono::nanoseconds> net_overhead;  // o
  std::optional<std::chrono::nanoseconds> net_gap;       // g
  std::optional<std::chrono::nanoseconds> net_per_byte;  // G

  // InvalidArgument naming the knob when a value is out of range or knobs conflict (a LogGP
  // knob below 0). The refusals that need the run (a gap longer than a level, a per-byte time
  // the link rate already exceeds) are experiment/preflight.cc's.
  Status Validate() const;
  // Whether L, g or G is set above 0: the in-path relay (relay/) applies them.
  bool NeedsRelay() const;
  bool empty() const;
  nlohmann::json ToJson() const;
  // The inverse of ToJson (a remote workload's agent receives its partition this way).
  // InvalidArgument naming the field when `j` is not such a document; the values are not
  // Validate()d here.
  static Result<PartitionSpec> FromJson(const nlohmann::json& j);
};

// "512M", "1G", "4096", "64k": bytes with binary suffixes (K = 1024). InvalidArgument otherwise.
Result<int64_t> ParseBytes(std::string_view s);
// "20M" (bytes/s, binary suffixes; a trailing "/s" or "B/s" is accepted).
Result<int64_t> ParseBytesPerSecond(std::string_view s);
// "100mbit", "1gbit", "500kbit", "1000000bit" or "12.5MB/s" (decimal, as tc): bits/s.
Result<int64_t> ParseBitRate(std::string_view s);
// "4000MBps" (also "4000MB/s") -> 4000 MB/s; NotFound when `s` is not written in MB/s (so the
// caller may read it as a percentage), InvalidArgument for a bad amount.
Result<int64_t> ParseMegabytesPerSecond(std::string_view s);
// "50%" or "0.5" (a fraction) -> 0.5. `what` names the flag in the message.
Result<double> ParsePercent(std::string_view s, std::string_view what);
// "250ms", "1s", "100us", "2m": a duration. InvalidArgument otherwise.
Result<std::chrono::nanoseconds> ParseDuration(std::string_view s);

}  // namespace ream
