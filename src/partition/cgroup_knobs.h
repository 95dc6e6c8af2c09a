// The cgroup resource knobs, one function each, for v1 and v2: cpuset, CPU quota and weight,
// memory limit (and how to tell an OOM kill), disk throttling of one block device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "partition/cgroup.h"

namespace ream {

// The CFS period ream uses for quotas (100 ms, the kernel's default).
constexpr int64_t kCpuPeriodUs = 100000;

// cpuset.cpus (and mems, left as the parent's).
Status ApplyCpuset(Cgroup& cg, const std::vector<int>& cpus);
// `cpus` worth of CPU time per period: v1 cpu.cfs_quota_us/cfs_period_us, v2 cpu.max.
Status ApplyCpuQuota(Cgroup& cg, double cpus);
// v1 cpu.shares = weight * 1024 / 100; v2 cpu.weight.
Status ApplyCpuWeight(Cgroup& cg, int weight);
// cpu.idle = 1 (PartitionSpec::cpu_idle), or back to 0 with `idle` false (a manager giving a
// best-effort tenant the normal class again). Unsupported naming the file and the kernel it needs
// when the cgroup has none.
Status ApplyCpuIdle(Cgroup& cg, bool idle = true);
// v1 memory.limit_in_bytes (+ memsw to the same value when swap accounting exists, so the
// limit cannot be dodged by swapping); v2 memory.max and memory.swap.max = 0.
Status ApplyMemoryLimit(Cgroup& cg, int64_t bytes);
// How many processes of the cgroup the kernel OOM-killed (v1 memory.oom_control
// "oom_kill", v2 memory.events "oom_kill"). Unsupported when the kernel does not say.
Result<int64_t> OomKillCount(const Cgroup& cg);

struct BlockDevice {
  int major = 0;
  int minor = 0;
  std::string name;  // "vda" (sysfs name), for messages
  std::string Id() const { return std::to_string(major) + ":" + std::to_string(minor); }
};

// The whole-disk block device meant by `spec`: "MAJ:MIN", "/dev/<disk>", or any path (the
// disk under the filesystem holding it; a partition is mapped to its disk, because the
// throttle applies to whole devices). "" means the current directory. NotFound /
// Unsupported saying why (e.g. a tmpfs or overlay path has no block device).
Result<BlockDevice> ResolveBlockDevice(Platform& platform, const std::string& spec);

struct DiskLimits {
  std::optional<int64_t> read_bps, write_bps, read_iops, write_iops;
  bool any() const { return read_bps || write_bps || read_iops || write_iops; }
};
// v1 blkio.throttle.{read,write}_{bps,iops}_device; v2 io.max "MAJ:MIN rbps=.. wbps=..".
Status ApplyDiskLimits(Cgroup& cg, const BlockDevice& device, const DiskLimits& limits);

}  // namespace ream
