// The probes behind `ream doctor`. Each one tries the real interface and reports what the
// kernel answered; nothing is assumed from the kernel version or config.
#include "platform/capabilities.h"

#include <algorithm>


namespace ream {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;
constexpr auto kCmdTimeout = std::chrono::milliseconds(10000);

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

Capability Cap(std::string name, Support s, std::string detail) {
  return {std::move(name), s, std::move(detail)};
}

// Runs a command; ok when it exited 0, else the reason ("exit 2: Error: ...").
Status RunOk(Platform& p, const std::vector<std::string>& argv) {
  auto r = p.Run(argv, kCmdTimeout);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    return IoError("'" + cmd + "': " + r->Describe());
  }
  return Status::Ok();
}

void ProbeCgroups(Platform& p, const ProbeOptions& o, std::vector<Capability>& out) {
  CgroupLayout layout = DetectCgroups(p);
  if (layout.version == 0) {
    out.push_back(Cap("cgroup.version", Support::kUnsupported,
                      "no cgroup hierarchy with controllers in /proc/mounts"));
    for (const char* n : {"cgroup.cpuset", "cgroup.cpu_quota", "cgroup.memory", "cgroup.io",
                          "cgroup.create"}) {
      out.push_back(Cap(n, Support::kUnsupported, "no cgroup hierarchy"));
    }
    return;
  }
  if (layout.version == 2) {
    out.push_back(Cap("cgroup.version", Support::kSupported, "v2 (unified) at " + layout.v2_root));
    std::string controllers = Trim(p.ReadFile(layout.v2_root + "/cgroup.controllers").value_or(""));
    struct Want { const char* cap; const char* ctl; const char* file; };
    for (const Want& w : {Want{"cgroup.cpuset", "cpuset", "cpuset.cpus"},
                          Want{"cgroup.cpu_quota", "cpu", "cpu.max"},
                          Want{"cgroup.memory", "memory", "memory.max"},
                          Want{"cgroup.io", "io", "io.max"}}) {
      bool has = false;
      for (const auto& c : Split(controllers, ' ')) has = has || c == w.ctl;
      out.push_back(has ? Cap(w.cap, Support::kSupported,
                              std::string("v2 controller '") + w.ctl + "' (" + w.file + ")")
                        : Cap(w.cap, Support::kUnsupported,
                              std::string("v2 controller '") + w.ctl +
                                  "' not in " + layout.v2_root + "/cgroup.controllers"));
    }
  } else {
    std::string detail = "v1";
    if (!layout.v2_root.empty()) detail += " (hybrid: unified hierarchy at " + layout.v2_root + ")";
    out.push_back(Cap("cgroup.version", Support::kSupported, detail));
    struct Want { const char* cap; const char* ctl; const char* file; };
    for (const Want& w : {Want{"cgroup.cpuset", "cpuset", "cpuset.cpus"},
                          Want{"cgroup.cpu_quota", "cpu", "cpu.cfs_quota_us"},
                          Want{"cgroup.memory", "memory", "memory.limit_in_bytes"},
                          Want{"cgroup.io", "blkio", "blkio.throttle.read_bps_device"}}) {
      std::string mount = layout.V1Mount(w.ctl);
      if (mount.empty()) {
        out.push_back(Cap(w.cap, Support::kUnsupported,
                          std::string("v1 controller '") + w.ctl + "' is not mounted"));
      } else if (!p.Exists(mount + "/" + w.file)) {
        out.push_back(Cap(w.cap, Support::kUnsupported, mount + "/" + w.file + " is missing"));
      } else {
        out.push_back(Cap(w.cap, Support::kSupported,
                          std::string("v1 ") + mount + " (" + w.file + ")"));
      }
    }
  }
  if (!o.try_kernel_objects) {
    out.push_back(Cap("cgroup.create", Support::kUnknown, "not tried"));
    return;
  }
  std::string name = "ream-doctor-" + std::to_string(p.ProcessId());
  std::vector<std::string> dirs;
  if (layout.version == 2) {
    dirs.push_back(layout.v2_root + "/" + name);
  } else {
    for (const char* ctl : {"cpuset", "cpu", "memory", "blkio"}) {
      std::string m = layout.V1Mount(ctl);
      if (!m.empty() && std::find(dirs.begin(), dirs.end(), m + "/" + name) == dirs.end())
        dirs.push_back(m + "/" + name);
    }
  }
  std::vector<std::string> made;
  Status failure;
  for (const auto& d : dirs) {
    Status s = p.MakeDir(d);
    if (!s.ok()) {
      failure = s;
      break;
    }
    made.push_back(d);
  }
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    Status s = p.RemoveDir(*it);
    if (!s.ok() && failure.ok()) failure = s.Annotate("removing the probe cgroup");
  }
  out.push_back(failure.ok() ? Cap("cgroup.create", Support::kSupported,
                                   "created and removed " + std::to_string(made.size()) +
                                       " cgroup(s) named " + name)
                             : Cap("cgroup.create", Support::kUnsupported, failure.message()));
}

void ProbeNetwork(Platform& p, const ProbeOptions& o, std::vector<Capability>& out) {
  const char* qdisc_caps[] = {"tc.htb", "tc.tbf", "tc.netem", "tc.fq", "tc.clsact", "tc.cls_bpf"};
  if (!o.try_kernel_objects) {
    for (const char* n : {"net.namespace", "net.veth", "tc.htb", "tc.tbf", "tc.netem", "tc.fq", "tc.clsact",
                          "tc.cls_bpf"})
      out.push_back(Cap(n, Support::kUnknown, "not tried"));
    return;
  }
  if (auto ip = p.FindExecutable("ip"); !ip.ok()) {
    for (const char* n : {"net.namespace", "net.veth"})
      out.push_back(Cap(n, Support::kUnknown, "cannot try: " + ip.status().message()));
  }
  std::string pid = std::to_string(p.ProcessId());
  std::string ns = "ream-doctor-" + pid;
  Status s = RunOk(p, {"ip", "netns", "add", ns});
  if (s.ok()) {
    Status d = RunOk(p, {"ip", "netns", "delete", ns});
    out.push_back(d.ok() ? Cap("net.namespace", Support::kSupported,
                               "created and deleted network namespace " + ns)
                         : Cap("net.namespace", Support::kUnknown,
                               "created " + ns + " but could not delete it: " + d.message()));
  } else {
    out.push_back(Cap("net.namespace",
                      s.code() == StatusCode::kNotFound ? Support::kUnknown : Support::kUnsupported,
                      s.message()));
  }
  // Interface names are limited to 15 characters.
  std::string va = "rmd" + pid + "a", vb = "rmd" + pid + "b";
  s = RunOk(p, {"ip", "link", "add", va, "type", "veth", "peer", "name", vb});
  if (!s.ok()) {
    Support st = s.code() == StatusCode::kNotFound ? Support::kUnknown : Support::kUnsupported;
    out.push_back(Cap("net.veth", st, s.message()));
    for (const char* n : qdisc_caps)
      out.push_back(Cap(n, Support::kUnknown, "cannot try without a veth pair: " + s.message()));
    return;
  }
  out.push_back(Cap("net.veth", Support::kSupported, "created veth pair " + va + "/" + vb));
  struct Q { const char* cap; std::vector<std::string> args; };
  std::vector<Q> qs = {
      {"tc.htb", {"htb", "default", "1"}},
      {"tc.tbf", {"tbf", "rate", "100mbit", "burst", "32kb", "latency", "50ms"}},
      {"tc.netem", {"netem", "delay", "1ms"}},
      // fq departs packets at their skb->tstamp: with a BPF program on clsact setting it, the
      // earliest-departure-time delay of the LogGP knobs.
      {"tc.fq", {"fq"}},
  };
  for (const auto& q : qs) {
    std::vector<std::string> argv = {"tc", "qdisc", "add", "dev", va, "root", "handle", "1:"};
    argv.insert(argv.end(), q.args.begin(), q.args.end());
    Status qs_status = RunOk(p, argv);
    if (qs_status.ok()) {
      Status del = RunOk(p, {"tc", "qdisc", "del", "dev", va, "root"});
      out.push_back(Cap(q.cap, Support::kSupported,
                        "added and removed a " + q.args[0] + " qdisc on a throwaway veth" +
                            (del.ok() ? "" : " (removal failed: " + del.message() + ")")));
    } else {
      Support st = qs_status.code() == StatusCode::kNotFound ? Support::kUnknown
                                                             : Support::kUnsupported;
      out.push_back(Cap(q.cap, st, qs_status.message()));
    }
  }
  // clsact is not a root qdisc (no handle); cls_bpf is tried with a one-instruction classic BPF
  // program (accept), which needs no object file: it proves the classifier, not an eBPF EDT
  // program, which would also need a compiled object.
  Status cl = RunOk(p, {"tc", "qdisc", "add", "dev", va, "clsact"});
  if (cl.ok()) {
    out.push_back(Cap("tc.clsact", Support::kSupported, "added a clsact qdisc on a throwaway veth"));
    Status bpf = RunOk(p, {"tc", "filter", "add", "dev", va, "egress", "bpf", "bytecode", "1,6 0 0 4294967295,"});
    out.push_back(bpf.ok() ? Cap("tc.cls_bpf", Support::kSupported,
                                 "attached a classic BPF filter (cls_bpf) to clsact egress on a throwaway veth")
                           : Cap("tc.cls_bpf", bpf.code() == StatusCode::kNotFound ? Support::kUnknown
                                                                                   : Support::kUnsupported,
                                 bpf.message()));
    Status d = RunOk(p, {"tc", "qdisc", "del", "dev", va, "clsact"});
    if (!d.ok()) out.back().detail += " (removal failed: " + d.message() + ")";
  } else {
    Support st = cl.code() == StatusCode::kNotFound ? Support::kUnknown : Support::kUnsupported;
    out.push_back(Cap("tc.clsact", st, cl.message()));
    out.push_back(Cap("tc.cls_bpf", Support::kUnknown, "cannot try without clsact: " + cl.message()));
  }
  Status del = RunOk(p, {"ip", "link", "delete", va});
  if (!del.ok()) out.back().detail += "; deleting veth " + va + " failed: " + del.message();
}

void ProbeResctrl(Platform& p, const ProbeOptions& o, std::vector<Capability>& out) {
  const char* names[] = {"resctrl.cat_l3", "resctrl.mba", "resctrl.cmt", "resctrl.mbm"};
  std::string filesystems = p.ReadFile("/proc/filesystems").value_or("");
  std::string mounts = p.ReadFile("/proc/mounts").value_or("");
  std::string mount_point;
  for (const auto& line : Split(mounts, '\n')) {
    auto f = Split(line, ' ');
    if (f.size() >= 3 && f[2] == "resctrl") mount_point = f[1];
  }
  bool mounted_here = false;
  if (mount_point.empty()) {
    if (!Contains(filesystems, "resctrl")) {
      std::string flags;
      std::string cpuinfo = p.ReadFile("/proc/cpuinfo").value_or("");
      for (const char* f : {"cat_l3", "mba", "cqm_llc", "cqm_mbm_total"})
        if (Contains(cpuinfo, std::string(" ") + f)) flags += std::string(" ") + f;
      std::string why = "the kernel has no resctrl filesystem (not in /proc/filesystems)";
      why += flags.empty() ? "; the CPU advertises none of cat_l3, mba, cqm_llc, cqm_mbm_total"
                           : "; CPU flags present:" + flags;
      for (const char* n : names) out.push_back(Cap(n, Support::kUnsupported, why));
      return;
    }
    if (!o.try_kernel_objects) {
      for (const char* n : names)
        out.push_back(Cap(n, Support::kUnknown, "resctrl is not mounted; mounting not tried"));
      return;
    }
    Status s = RunOk(p, {"mount", "-t", "resctrl", "resctrl", "/sys/fs/resctrl"});
    if (!s.ok()) {
      for (const char* n : names)
        out.push_back(Cap(n, Support::kUnsupported, "mounting resctrl failed: " + s.message()));
      return;
    }
    mount_point = "/sys/fs/resctrl";
    mounted_here = true;
  }
  auto has = [&](const std::string& rel) { return p.Exists(mount_point + "/" + rel); };
  std::string mon = p.ReadFile(mount_point + "/info/L3_MON/mon_features").value_or("");
  // A CDP mount splits L3 into info/L3CODE and info/L3DATA; mba_MBps makes MB take MB/s.
  const std::string l3 = has("info/L3CODE/cbm_mask") ? "info/L3CODE" : "info/L3";
  const bool mbps = Contains(p.ReadFile("/proc/mounts").value_or(""), "mba_MBps");
  out.push_back(has(l3 + "/cbm_mask")
                    ? Cap(names[0], Support::kSupported,
                          "L3 CAT, cbm_mask " + Trim(p.ReadFile(mount_point + "/" + l3 + "/cbm_mask")
                                                         .value_or("?")) +
                              (l3 == "info/L3CODE" ? " (CDP: L3CODE/L3DATA)" : ""))
                    : Cap(names[0], Support::kUnsupported, "no info/L3 in " + mount_point));
  out.push_back(has("info/MB/min_bandwidth")
                    ? Cap(names[1], Support::kSupported,
                          mbps ? std::string("MBA in MB/s (mba_MBps mount)")
                               : "MBA, min_bandwidth " +
                                     Trim(p.ReadFile(mount_point + "/info/MB/min_bandwidth").value_or("?")))
                    : Cap(names[1], Support::kUnsupported, "no info/MB in " + mount_point));
  out.push_back(Contains(mon, "llc_occupancy")
                    ? Cap(names[2], Support::kSupported, "L3_MON llc_occupancy")
                    : Cap(names[2], Support::kUnsupported, "llc_occupancy not in info/L3_MON"));
  out.push_back(Contains(mon, "mbm_total_bytes")
                    ? Cap(names[3], Support::kSupported, "L3_MON mbm_total_bytes")
                    : Cap(names[3], Support::kUnsupported, "mbm_total_bytes not in info/L3_MON"));
  if (mounted_here) {
    Status s = RunOk(p, {"umount", mount_point});
    if (!s.ok()) out.back().detail += "; unmounting the probe's resctrl mount failed: " + s.message();
  }
}

}  // namespace

std::string_view SupportName(Support s) {
  switch (s) {
    case Support::kSupported: return "supported";
    case Support::kUnsupported: return "unsupported";
    case Support::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string CgroupLayout::V1Mount(const std::string& controller) const {
  for (const auto& [c, m] : v1_mounts)
    if (c == controller) return m;
  return "";
}

CgroupLayout DetectCgroups(Platform& p) {
  CgroupLayout layout;
  std::string mounts = p.ReadFile("/proc/mounts").value_or("");
  for (const auto& line : Split(mounts, '\n')) {
    auto f = Split(line, ' ');
    if (f.size() < 4) continue;
    if (f[2] == "cgroup2") {
      layout.v2_root = f[1];
    } else if (f[2] == "cgroup") {
      for (const auto& opt : Split(f[3], ',')) {
        for (const char* ctl : {"cpuset", "cpu", "cpuacct", "memory", "blkio", "pids", "perf_event"}) {
          if (opt == ctl) layout.v1_mounts.emplace_back(opt, f[1]);
        }
      }
    }
  }
  if (!layout.v1_mounts.empty()) {
    layout.version = 1;
  } else if (!layout.v2_root.empty()) {
    auto magic = p.FilesystemMagic(layout.v2_root);
    if (!magic.ok() || *magic == kCgroup2Magic) layout.version = 2;
  }
  return layout;
}

std::vector<Capability> ProbeCapabilities(Platform& p, const ProbeOptions& options) {
  std::vector<Capability> out;
  ProbeCgroups(p, options, out);
  ProbeNetwork(p, options, out);
  ProbeResctrl(p, options, out);

  Status perf = p.ProbePerfLlcMisses();
  out.push_back(perf.ok() ? Cap("perf.llc_misses", Support::kSupported,
                                "perf_event_open counted LLC read misses")
                          : Cap("perf.llc_misses", Support::kUnsupported, perf.message()));

  // `--keep-awake` by the kernel's idle polling (platform/keep_awake.h): every online CPU's
  // cpuidle driver has the polling state, and its PM QoS resume-latency file exists.
  {
    std::string online = p.ReadFile("/sys/devices/system/cpu/online").value_or("");
    while (!online.empty() && (online.back() == '\n' || online.back() == ' ')) online.pop_back();
    auto cpus = ParseCpuList(online);
    std::string why;
    if (!cpus.ok() || cpus->empty()) why = "cannot read the online CPUs";
    for (int cpu : cpus.ok() ? *cpus : std::vector<int>{}) {
      const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
      std::string name = p.ReadFile(dir + "/cpuidle/state0/name").value_or("");
      while (!name.empty() && name.back() == '\n') name.pop_back();
      if (name != "POLL") {
        why = "CPU " + std::to_string(cpu) + (name.empty() ? " has no cpuidle driver" : "'s shallowest idle state is " + name);
      } else if (!p.ReadFile(dir + "/power/pm_qos_resume_latency_us").ok()) {
        why = "CPU " + std::to_string(cpu) + " has no PM QoS resume-latency file";
      }
      if (!why.empty()) break;
    }
    out.push_back(why.empty() ? Cap("cpu.idle_poll", Support::kSupported,
                                    "every CPU's idle driver can poll: --keep-awake asks the kernel (PM QoS resume "
                                    "latency 0), no poller runs")
                              : Cap("cpu.idle_poll", Support::kUnsupported,
                                    why + ": --keep-awake uses SCHED_IDLE pollers there"));
  }

  auto kvm = p.KvmApiVersion();
  out.push_back(kvm.ok() ? Cap("kvm", Support::kSupported,
                               "/dev/kvm answers KVM_GET_API_VERSION = " + std::to_string(*kvm))
                         : Cap("kvm", Support::kUnsupported, kvm.status().message()));
  auto qemu = p.FindExecutable("qemu-system-x86_64");
  out.push_back(qemu.ok() ? Cap("qemu", Support::kSupported, *qemu)
                          : Cap("qemu", Support::kUnsupported, qemu.status().message()));
  return out;
}

nlohmann::json CapabilitiesToJson(const std::vector<Capability>& caps) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& c : caps)
    arr.push_back({{"name", c.name}, {"status", SupportName(c.status)}, {"detail", c.detail}});
  return arr;
}

Result<std::vector<Capability>> CapabilitiesFromJson(const nlohmann::json& j) {
  if (!j.is_array()) return InvalidArgument("a capability list is a JSON array, got " + j.dump());
  std::vector<Capability> caps;
  for (const auto& c : j) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
      return InvalidArgument("a capability without a name: " + c.dump());
    }
    Capability cap;
    cap.name = c["name"].get<std::string>();
    const std::string status = c.contains("status") && c["status"].is_string() ? c["status"].get<std::string>() : "";
    for (Support s : {Support::kSupported, Support::kUnsupported, Support::kUnknown}) {
      if (SupportName(s) == status) cap.status = s;
    }
    cap.detail = c.contains("detail") && c["detail"].is_string() ? c["detail"].get<std::string>() : "";
    caps.push_back(std::move(cap));
  }
  return caps;
}

const Capability* FindCapability(const std::vector<Capability>& caps, std::string_view name) {
  for (const auto& c : caps)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace ream
