// cgroup knob implementations. Each names the file and value in its error.
#include "partition/cgroup_knobs.h"

#include <cmath>

namespace ream {

Status ApplyCpuset(Cgroup& cg, const std::vector<int>& cpus) {
  if (cpus.empty()) return InvalidArgument("empty CPU set");
  if (cg.version() == 2) {
    // A v2 cpuset with empty mems inherits the parent's; only cpus is needed.
    return cg.Write("cpuset", "cpuset.cpus", FormatCpuList(cpus));
  }
  return cg.Write("cpuset", "cpuset.cpus", FormatCpuList(cpus));
}

Status ApplyCpuQuota(Cgroup& cg, double cpus) {
  int64_t quota = static_cast<int64_t>(std::llround(cpus * kCpuPeriodUs));
  if (quota < 1000) return InvalidArgument("CPU quota below 1 ms per 100 ms period");
  if (cg.version() == 2) {
    return cg.Write("cpu", "cpu.max", std::to_string(quota) + " " + std::to_string(kCpuPeriodUs));
  }
  REAM_RETURN_IF_ERROR(cg.Write("cpu", "cpu.cfs_period_us", std::to_string(kCpuPeriodUs)));
  return cg.Write("cpu", "cpu.cfs_quota_us", std::to_string(quota));
}

Status ApplyCpuWeight(Cgroup& cg, int weight) {
  if (cg.version() == 2) return cg.Write("cpu", "cpu.weight", std::to_string(weight));
  int64_t shares = std::max<int64_t>(2, static_cast<int64_t>(weight) * 1024 / 100);
  return cg.Write("cpu", "cpu.shares", std::to_string(shares));
}

Status ApplyCpuIdle(Cgroup& cg, bool idle) {
  Status s = cg.Write("cpu", "cpu.idle", idle ? "1" : "0");
  if (s.code() == StatusCode::kNotFound) {
    return Unsupported("the cpu controller has no cpu.idle (Linux 5.15 or later has it): " + s.message());
  }
  return s;
}

Status ApplyMemoryLimit(Cgroup& cg, int64_t bytes) {
  std::string v = std::to_string(bytes);
  if (cg.version() == 2) {
    REAM_RETURN_IF_ERROR(cg.Write("memory", "memory.max", v));
    if (cg.Read("memory", "memory.swap.max").ok()) {
      REAM_RETURN_IF_ERROR(cg.Write("memory", "memory.swap.max", "0"));
    }
    return Status::Ok();
  }
  REAM_RETURN_IF_ERROR(cg.Write("memory", "memory.limit_in_bytes", v));
  // memsw must be >= the memory limit, so it is set after it.
  if (cg.Read("memory", "memory.memsw.limit_in_bytes").ok()) {
    REAM_RETURN_IF_ERROR(cg.Write("memory", "memory.memsw.limit_in_bytes", v));
  }
  return Status::Ok();
}

Result<int64_t> OomKillCount(const Cgroup& cg) {
  std::string file = cg.version() == 2 ? "memory.events" : "memory.oom_control";
  auto text = cg.Read("memory", file);
  if (!text.ok()) return text.status();
  for (const auto& line : Split(*text, '\n')) {
    auto f = Split(line, ' ');
    if (f.size() == 2 && f[0] == "oom_kill") return static_cast<int64_t>(std::atoll(f[1].c_str()));
  }
  return Unsupported(file + " has no oom_kill counter (kernel older than 4.13)");
}

Result<BlockDevice> ResolveBlockDevice(Platform& p, const std::string& spec_in) {
  std::string spec = spec_in.empty() ? "." : spec_in;
  int major = -1, minor = -1;
  auto colon = spec.find(':');
  if (colon != std::string::npos && spec.find('/') == std::string::npos) {
    char* end = nullptr;
    major = static_cast<int>(std::strtol(spec.c_str(), &end, 10));
    if (end != spec.c_str() + colon) return InvalidArgument("bad device '" + spec + "' (use MAJ:MIN)");
    minor = static_cast<int>(std::strtol(spec.c_str() + colon + 1, &end, 10));
    if (*end != '\0') return InvalidArgument("bad device '" + spec + "' (use MAJ:MIN)");
  } else if (spec.rfind("/dev/", 0) == 0) {
    std::string name = spec.substr(5);
    auto dev = p.ReadFile("/sys/class/block/" + name + "/dev");
    if (!dev.ok()) return NotFound("'" + spec + "' is not a block device known to /sys/class/block");
    auto f = Split(Trim(*dev), ':');
    if (f.size() != 2) return Corrupt("unexpected /sys/class/block/" + name + "/dev");
    major = std::atoi(f[0].c_str());
    minor = std::atoi(f[1].c_str());
  } else {
    auto dev = p.DeviceOf(spec);
    if (!dev.ok()) return dev.status().Annotate("finding the disk of '" + spec + "'");
    major = dev->first;
    minor = dev->second;
  }
  std::string id = std::to_string(major) + ":" + std::to_string(minor);
  std::string sys = "/sys/dev/block/" + id;
  if (!p.Exists(sys)) {
    return Unsupported("'" + spec + "' is on device " + id +
                       ", which is not a block device (tmpfs, overlay, network or virtual "
                       "filesystem?): there is no disk to throttle; pass --disk-device");
  }
  auto real = p.RealPath(sys);
  if (!real.ok()) return real.status();
  std::string dir = *real;
  // A partition's sysfs directory sits inside its disk's and has a "partition" file.
  if (p.Exists(dir + "/partition")) {
    dir = dir.substr(0, dir.rfind('/'));
    auto disk = p.ReadFile(dir + "/dev");
    if (!disk.ok()) return disk.status().Annotate("reading the disk of partition " + id);
    auto f = Split(Trim(*disk), ':');
    if (f.size() != 2) return Corrupt("unexpected " + dir + "/dev");
    major = std::atoi(f[0].c_str());
    minor = std::atoi(f[1].c_str());
  }
  BlockDevice d;
  d.major = major;
  d.minor = minor;
  d.name = dir.substr(dir.rfind('/') + 1);
  return d;
}

Status ApplyDiskLimits(Cgroup& cg, const BlockDevice& dev, const DiskLimits& l) {
  if (!l.any()) return Status::Ok();
  std::string id = dev.Id();
  if (cg.version() == 2) {
    std::string v = id;
    if (l.read_bps) v += " rbps=" + std::to_string(*l.read_bps);
    if (l.write_bps) v += " wbps=" + std::to_string(*l.write_bps);
    if (l.read_iops) v += " riops=" + std::to_string(*l.read_iops);
    if (l.write_iops) v += " wiops=" + std::to_string(*l.write_iops);
    return cg.Write("io", "io.max", v);
  }
  struct K { const std::optional<int64_t>& v; const char* file; };
  for (const K& k : {K{l.read_bps, "blkio.throttle.read_bps_device"},
                     K{l.write_bps, "blkio.throttle.write_bps_device"},
                     K{l.read_iops, "blkio.throttle.read_iops_device"},
                     K{l.write_iops, "blkio.throttle.write_iops_device"}}) {
    if (k.v) REAM_RETURN_IF_ERROR(cg.Write("blkio", k.file, id + " " + std::to_string(*k.v)));
  }
  return Status::Ok();
}

}  // namespace ream
