// The sampling thread and the counters behind each metric.
#include "monitor/monitor.h"

#include <algorithm>
#include <cmath>

#include "sandbox/sandbox.h"

namespace ream {
namespace {

std::optional<int64_t> ToInt(const Result<std::string>& r) {
  if (!r.ok()) return std::nullopt;
  std::string t = Trim(*r);
  if (t.empty() || t == "max") return std::nullopt;
  return static_cast<int64_t>(std::atoll(t.c_str()));
}

// /proc/stat: busy ticks (all but idle and iowait) per CPU id.
std::map<int, int64_t> ProcStatBusyTicks(Platform& p) {
  std::map<int, int64_t> out;
  for (const auto& line : Split(p.ReadFile("/proc/stat").value_or(""), '\n')) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3])))
      continue;
    auto f = Split(line, ' ');
    if (f.size() < 8) continue;
    int id = std::atoi(f[0].c_str() + 3);
    int64_t total = 0;
    for (size_t i = 1; i < f.size() && i <= 8; ++i) total += std::atoll(f[i].c_str());
    out[id] = total - std::atoll(f[4].c_str()) - std::atoll(f[5].c_str());
  }
  return out;
}

std::optional<double> Rate(const std::optional<int64_t>& a, const std::optional<int64_t>& b,
                           double dt_s) {
  if (!a || !b || dt_s <= 0) return std::nullopt;
  return static_cast<double>(*b - *a) / dt_s;
}

nlohmann::json Opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json Opt(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

MonitorTarget TargetOf(Sandbox& sb) { return sb.monitor_target(); }

Monitor::Monitor(Platform& p, MonitorTarget target, MonitorOptions options)
    : p_(p), target_(std::move(target)), options_(options) {
  ProbeSources();
}

Monitor::~Monitor() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
}

void Monitor::ProbeSources() {
  const Cgroup* cg = target_.cgroup;
  allotted_ = static_cast<double>(target_.cpus.size());
  if (target_.cpu_quota && *target_.cpu_quota < allotted_) allotted_ = *target_.cpu_quota;
  if (!cg) {
    for (const char* m : {"cpu", "disk", "memory", "memory_peak"})
      unavailable_[m] = target_.unavailable_reason.empty() ? "no cgroup to account the sandbox's consumption"
                                                           : target_.unavailable_reason;
  } else if (cg->version() == 1) {
    if (cg->Has("cpuacct")) {
      sources_["cpu"] = "cgroup v1 cpuacct.usage / cpuacct.usage_percpu";
    } else {
      unavailable_["cpu"] = "cgroup v1 controller 'cpuacct' is not mounted";
    }
    if (cg->Has("blkio")) {
      sources_["disk"] = "cgroup v1 blkio.throttle.io_service_bytes / io_serviced";
    } else {
      unavailable_["disk"] = "cgroup v1 controller 'blkio' is not mounted";
    }
    if (cg->Has("memory")) {
      sources_["memory"] = "cgroup v1 memory.usage_in_bytes";
      if (cg->observed()) {
        // Another program's group (libvirt's, for a guest): its high-water mark is not reset.
        peak_file_ = "memory.max_usage_in_bytes";
        peak_scope_ = "cgroup lifetime";
        sources_["memory_peak"] = "cgroup v1 memory.max_usage_in_bytes: the group's lifetime peak (" +
                                  cg->Dir("memory") + " is not ream's: ream does not reset it)";
      } else if (cg->Read("memory", "memory.max_usage_in_bytes").ok()) {
        peak_file_ = "memory.max_usage_in_bytes";
        peak_scope_ = "window";
        sources_["memory_peak"] =
            "cgroup v1 memory.max_usage_in_bytes, reset to 0 at the window's start";
      } else {
        unavailable_["memory_peak"] = "cgroup v1 memory.max_usage_in_bytes cannot be read in " +
                                      cg->Dir("memory");
      }
    } else {
      unavailable_["memory"] = "cgroup v1 controller 'memory' is not mounted";
      unavailable_["memory_peak"] = unavailable_["memory"];
    }
  } else {
    sources_["cpu"] = "cgroup v2 cpu.stat usage_usec";
    sources_["per_cpu"] =
        "/proc/stat of the allotted CPUs (cgroup v2 has no per-CPU usage; includes any other "
        "process on those CPUs)";
    per_cpu_from_proc_stat_ = true;
    sources_["disk"] = "cgroup v2 io.stat";
    sources_["memory"] = "cgroup v2 memory.current";
    if (cg->Read("memory", "memory.peak").ok()) {
      // memory.peak is the cgroup's lifetime maximum. Kernels from 6.12 reset it on a write,
      // but only for reads through the same open file descriptor (cgroup-v2.rst,
      // "memory.peak"); ream reads files by path, so the figure is the lifetime peak.
      peak_file_ = "memory.peak";
      peak_scope_ = "cgroup lifetime";
      sources_["memory_peak"] =
          "cgroup v2 memory.peak: the cgroup's lifetime peak, not this window's (its reset "
          "holds only for one open file descriptor)";
    } else {
      unavailable_["memory_peak"] =
          "cgroup v2 memory.peak is absent (kernels before 5.19 do not keep the peak)";
    }
  }
  if (target_.cpu_ns_reader) {
    sources_["cpu"] = target_.cpu_source;
    unavailable_.erase("cpu");
  }
  if (!target_.host_veth.empty()) {
    sources_["net"] = "node veth " + target_.host_veth + " (rx = what the node received)";
  } else {
    auto ifaces = p_.ListDir("/sys/class/net");
    if (ifaces.ok()) {
      std::string names;
      for (const auto& i : *ifaces) {
        if (!p_.Exists("/sys/class/net/" + i.name + "/statistics/rx_bytes")) continue;
        host_ifaces_.push_back(i.name);
        names += (names.empty() ? "" : ", ") + i.name;
      }
      sources_["net"] = "host interfaces (" + names +
                        "): the sandbox has no node of its own, so this is all of the host's "
                        "traffic, not the sandbox's alone";
    } else {
      unavailable_["net"] = "cannot list /sys/class/net: " + ifaces.status().message();
    }
  }
  if (!target_.resctrl) {
    auto rc = ReadResctrl(p_);
    std::string rc_why = !target_.resctrl_reason.empty() ? target_.resctrl_reason
                         : rc.ok() ? "the sandbox has no resctrl group"
                                   : rc.status().message();
    std::string hw_why = ProbeLlcMissEstimate();
    if (hw_why.empty()) {
      // Misses count lines brought in, not lines held: no occupancy from them.
      unavailable_["llc_occupancy"] = rc_why + "; hardware counters count LLC misses, not occupancy";
    } else {
      unavailable_["llc_occupancy"] = rc_why + "; " + hw_why;
      unavailable_["mem_bandwidth"] = rc_why + "; " + hw_why;
    }
  } else {
    if (target_.resctrl->LlcOccupancyBytes().ok()) {
      sources_["llc_occupancy"] = "resctrl " + target_.resctrl->dir() + "/mon_data/*/llc_occupancy";
    } else {
      unavailable_["llc_occupancy"] = target_.resctrl->LlcOccupancyBytes().status().message();
    }
    if (target_.resctrl->MbmTotalBytes().ok()) {
      sources_["mem_bandwidth"] = "resctrl " + target_.resctrl->dir() + "/mon_data/*/mbm_total_bytes";
      methods_["mem_bandwidth"] = kMemBwMeasured;
    } else {
      unavailable_["mem_bandwidth"] = target_.resctrl->MbmTotalBytes().status().message();
    }
  }
  // What the kind says it cannot give, whatever its cgroup holds.
  for (const auto& [figure, why] : target_.unavailable) {
    sources_.erase(figure);
    unavailable_[figure] = why;
    if (figure == "memory_peak") peak_file_.clear();
  }
}

std::string Monitor::ProbeLlcMissEstimate() {
  // Without resctrl monitoring, LLC misses × line size estimate the sandbox's memory traffic,
  // where the kernel lets ream count them for the sandbox's cgroup.
  const Cgroup* cg = target_.cgroup;
  if (!cg) return "hardware counters (for an LLC-miss estimate): no cgroup to count the sandbox's misses in";
  Status perf = p_.ProbePerfLlcMisses();
  if (!perf.ok()) return "hardware counters (for an LLC-miss estimate): " + perf.message();
  // A cgroup event names the cgroup by a directory of the hierarchy that has perf_event:
  // v2's unified one; in v1, the perf_event controller's.
  std::string dir = cg->version() == 2 ? cg->Dir("cpu") : cg->Dir("perf_event");
  if (dir.empty()) {
    return "hardware counters (for an LLC-miss estimate): cgroup v1 controller 'perf_event' is not "
           "mounted, so the sandbox's misses cannot be told from the host's";
  }
  if (target_.cpus.empty()) return "hardware counters (for an LLC-miss estimate): the sandbox's CPUs are not known";
  auto counter = p_.OpenCgroupLlcMisses(dir, target_.cpus);
  if (!counter.ok()) return "hardware counters (for an LLC-miss estimate): " + counter.status().message();
  auto first = (*counter)->Read();
  if (!first.ok()) return "hardware counters (for an LLC-miss estimate): " + first.status().message();
  // The last-level cache's line size from sysfs (coherency_line_size of the highest level).
  std::string line_note;
  int best_level = -1;
  const std::string cache = "/sys/devices/system/cpu/cpu" + std::to_string(target_.cpus.front()) + "/cache";
  for (const auto& e : p_.ListDir(cache).value_or(std::vector<DirEntry>{})) {
    if (e.name.rfind("index", 0) != 0) continue;
    auto level = ToInt(p_.ReadFile(cache + "/" + e.name + "/level"));
    auto line = ToInt(p_.ReadFile(cache + "/" + e.name + "/coherency_line_size"));
    if (!level || !line || *line <= 0 || *level <= best_level) continue;
    best_level = static_cast<int>(*level);
    llc_line_bytes_ = *line;
    line_note = "the L" + std::to_string(best_level) + " line (" + cache + "/" + e.name + ")";
  }
  if (best_level < 0) {
    llc_line_bytes_ = 64;
    line_note = "a line assumed 64 B (" + cache + " gives no line size)";
  }
  llc_misses_ = std::move(counter).value();
  sources_["mem_bandwidth"] = "estimate: perf LLC read misses of cgroup " + dir + " on CPUs " +
                              FormatCpuList(target_.cpus) + " × " + std::to_string(llc_line_bytes_) +
                              " B, " + line_note + "; counts demand reads that missed, not write-backs "
                              "or prefetches";
  methods_["mem_bandwidth"] = kMemBwEstimate;
  return "";
}

std::optional<int64_t> ReadCpuNs(const MonitorTarget& target, std::string* why) {
  // The kind's own reader first; when it has nothing now, the cgroup where there is one.
  if (target.cpu_ns_reader) {
    if (auto ns = target.cpu_ns_reader()) return ns;
    *why = "the CPU time from " + (target.cpu_source.empty() ? std::string("its reader") : target.cpu_source) +
           " could not be read now";
    if (!target.cgroup) return std::nullopt;
  }
  const Cgroup* cg = target.cgroup;
  if (!cg) {
    *why = target.unavailable_reason.empty() ? "no cgroup" : target.unavailable_reason;
    return std::nullopt;
  }
  if (cg->version() == 1) {
    if (!cg->Has("cpuacct")) {
      *why = "its cgroup has no cpuacct controller";
      return std::nullopt;
    }
    auto usage = cg->Read("cpuacct", "cpuacct.usage");
    if (!usage.ok()) *why = usage.status().message();
    return ToInt(usage);
  }
  auto stat = cg->Read("cpu", "cpu.stat");
  if (!stat.ok()) {
    *why = stat.status().message();
    return std::nullopt;
  }
  for (const auto& line : Split(*stat, '\n')) {
    auto f = Split(line, ' ');
    if (f.size() == 2 && f[0] == "usage_usec") return std::atoll(f[1].c_str()) * 1000;
  }
  *why = "cpu.stat has no usage_usec";
  return std::nullopt;
}

Monitor::Counters Monitor::Read() {
  Counters c;
  c.t_ns = p_.MonotonicNanos();
  const Cgroup* cg = target_.cgroup;
  // A counter file that cannot be read (the cgroup removed under the monitor, an I/O error):
  // the first failure of each family in this reading, for Stop() to say.
  auto fault = [&c](const char* family, const Result<std::string>& r) {
    if (!r.ok()) c.faults.emplace(family, r.status().message());
  };
  // A target with neither a cpuacct-capable cgroup nor a reader has no CPU figure (said
  // elsewhere); a cgroup read that fails is this reading's fault (a kind's reader that has
  // nothing now, a guest gone, leaves the sample out).
  if (!unavailable_.count("cpu") &&
      (target_.cpu_ns_reader || (cg && (cg->version() == 2 || cg->Has("cpuacct"))))) {
    std::string why;
    c.cpu_ns = ReadCpuNs(target_, &why);
    if (!c.cpu_ns && !target_.cpu_ns_reader) c.faults.emplace("cpu", why);
  }
  // (A cgroup without cpuacct can stand beside a kind's own CPU reader: a guest's, from libvirt.)
  if (cg && !unavailable_.count("cpu") && cg->version() == 1 && cg->Has("cpuacct")) {
    auto per = cg->Read("cpuacct", "cpuacct.usage_percpu");
    if (per.ok()) {
      auto f = Split(Trim(*per), ' ');
      for (size_t i = 0; i < f.size(); ++i) c.per_cpu_ns[static_cast<int>(i)] = std::atoll(f[i].c_str());
    }
  }
  if (per_cpu_from_proc_stat_) {
    // USER_HZ is 100 on Linux.
    for (const auto& [id, ticks] : ProcStatBusyTicks(p_)) c.per_cpu_ns[id] = ticks * 10000000;
  }
  if (cg && !unavailable_.count("memory")) {
    auto mem = cg->Read("memory", cg->version() == 1 ? "memory.usage_in_bytes" : "memory.current");
    fault("memory", mem);
    c.memory = ToInt(mem);
  }
  if (cg && !unavailable_.count("disk")) {
    auto wanted = [&](const std::string& dev) {
      return !target_.disk || dev == target_.disk->Id();
    };
    if (cg->version() == 1) {
      auto sum = [&](const std::string& file, int64_t* rd, int64_t* wr) {
        auto text = cg->Read("blkio", file);
        fault("disk", text);
        if (!text.ok()) return false;
        for (const auto& line : Split(*text, '\n')) {
          auto f = Split(line, ' ');
          if (f.size() != 3 || !wanted(f[0])) continue;
          if (f[1] == "Read") *rd += std::atoll(f[2].c_str());
          if (f[1] == "Write") *wr += std::atoll(f[2].c_str());
        }
        return true;
      };
      int64_t rb = 0, wb = 0, ri = 0, wi = 0;
      if (sum("blkio.throttle.io_service_bytes", &rb, &wb)) {
        c.disk_rbytes = rb;
        c.disk_wbytes = wb;
      }
      if (sum("blkio.throttle.io_serviced", &ri, &wi)) {
        c.disk_rios = ri;
        c.disk_wios = wi;
      }
    } else {
      auto text = cg->Read("io", "io.stat");
      fault("disk", text);
      if (text.ok()) {
        int64_t rb = 0, wb = 0, ri = 0, wi = 0;
        for (const auto& line : Split(*text, '\n')) {
          auto f = Split(line, ' ');
          if (f.empty() || !wanted(f[0])) continue;
          for (size_t i = 1; i < f.size(); ++i) {
            auto eq = f[i].find('=');
            if (eq == std::string::npos) continue;
            std::string k = f[i].substr(0, eq);
            int64_t v = std::atoll(f[i].c_str() + eq + 1);
            if (k == "rbytes") rb += v;
            if (k == "wbytes") wb += v;
            if (k == "rios") ri += v;
            if (k == "wios") wi += v;
          }
        }
        c.disk_rbytes = rb;
        c.disk_wbytes = wb;
        c.disk_rios = ri;
        c.disk_wios = wi;
      }
    }
  }
  if (!target_.host_veth.empty()) {
    std::string base = "/sys/class/net/" + target_.host_veth + "/statistics/";
    // The host side transmits what the node receives, and vice versa.
    c.net_rx = ToInt(p_.ReadFile(base + "tx_bytes"));
    c.net_tx = ToInt(p_.ReadFile(base + "rx_bytes"));
  } else if (!host_ifaces_.empty()) {
    int64_t rx = 0, tx = 0;
    for (const auto& i : host_ifaces_) {
      rx += ToInt(p_.ReadFile("/sys/class/net/" + i + "/statistics/rx_bytes")).value_or(0);
      tx += ToInt(p_.ReadFile("/sys/class/net/" + i + "/statistics/tx_bytes")).value_or(0);
    }
    c.net_rx = rx;
    c.net_tx = tx;
  }
  if (llc_misses_) {
    auto v = llc_misses_->Read();
    if (v.ok()) c.mbm_total = static_cast<int64_t>(*v) * llc_line_bytes_;
  }
  if (target_.resctrl) {
    if (!unavailable_.count("llc_occupancy")) {
      auto v = target_.resctrl->LlcOccupancyBytes();
      if (v.ok()) c.llc = *v;
    }
    if (!unavailable_.count("mem_bandwidth")) {
      auto v = target_.resctrl->MbmTotalBytes();
      if (v.ok()) c.mbm_total = *v;
    }
  }
  return c;
}

Sample Monitor::Between(const Counters& a, const Counters& b) const {
  Sample s;
  s.t_s = static_cast<double>(b.t_ns - start_ns_) / 1e9;
  double dt = static_cast<double>(b.t_ns - a.t_ns) / 1e9;
  if (dt <= 0) return s;
  if (a.cpu_ns && b.cpu_ns) {
    s.cpu_used = static_cast<double>(*b.cpu_ns - *a.cpu_ns) / 1e9 / dt;
    if (allotted_ > 0) s.cpu_utilization = *s.cpu_used / allotted_;
  }
  for (int cpu : target_.cpus) {
    auto ia = a.per_cpu_ns.find(cpu), ib = b.per_cpu_ns.find(cpu);
    if (ia == a.per_cpu_ns.end() || ib == b.per_cpu_ns.end()) {
      s.per_cpu.clear();
      break;
    }
    s.per_cpu.push_back(static_cast<double>(ib->second - ia->second) / 1e9 / dt);
  }
  s.net_rx_bytes_per_s = Rate(a.net_rx, b.net_rx, dt);
  s.net_tx_bytes_per_s = Rate(a.net_tx, b.net_tx, dt);
  s.disk_read_bytes_per_s = Rate(a.disk_rbytes, b.disk_rbytes, dt);
  s.disk_write_bytes_per_s = Rate(a.disk_wbytes, b.disk_wbytes, dt);
  s.disk_read_iops = Rate(a.disk_rios, b.disk_rios, dt);
  s.disk_write_iops = Rate(a.disk_wios, b.disk_wios, dt);
  s.memory_bytes = b.memory;
  s.llc_occupancy_bytes = b.llc;
  s.mem_bandwidth_bytes_per_s = Rate(a.mbm_total, b.mbm_total, dt);
  return s;
}

void Monitor::ResetPeak() {
  if (peak_file_ != "memory.max_usage_in_bytes" || target_.cgroup->observed()) return;
  // v1: writing 0 sets the high-water mark to the current usage (memory.rst, "max_usage_in_bytes").
  Status s = p_.WriteFile(target_.cgroup->Dir("memory") + "/" + peak_file_, "0");
  if (!s.ok()) {
    peak_scope_ = "cgroup lifetime";
    sources_["memory_peak"] = "cgroup v1 memory.max_usage_in_bytes: the cgroup's lifetime peak "
                              "(resetting it failed: " + s.message() + ")";
  }
}

Status Monitor::Baseline() {
  if (started_ || has_baseline_) return Internal("monitor already started");
  if (options_.interval < std::chrono::milliseconds(10)) {
    return InvalidArgument("the sample interval must be at least 10 ms");
  }
  ResetPeak();
  first_ = Read();
  start_ns_ = first_.t_ns;
  last_ = first_;
  has_baseline_ = true;
  return Status::Ok();
}

Status Monitor::Start() {
  if (started_) return Internal("monitor already started");
  if (!has_baseline_) REAM_RETURN_IF_ERROR(Baseline());
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void Monitor::Loop() {
  int64_t next = start_ns_;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    // An absolute schedule, so the timeline does not drift by the sampling cost.
    next += options_.interval.count();
    const int64_t now = p_.MonotonicNanos();
    // More than an interval behind (the thread starved, or the clock jumped forward): the
    // schedule restarts from now rather than catching up in a burst of back-to-back readings.
    if (now - next > options_.interval.count()) next = now;
    int64_t wait = next - now;
    if (wait > 0 && cv_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return stop_; })) {
      break;
    }
    lock.unlock();
    Counters c = Read();
    lock.lock();
    timeline_.push_back(Between(last_, c));
    faults_.insert(c.faults.begin(), c.faults.end());
    last_ = c;
  }
  thread_cpu_ns_ = p_.ThreadCpuNanos();
}

MonitorReport Monitor::Stop() {
  MonitorReport r;
  r.interval = options_.interval;
  r.cpus = target_.cpus;
  r.allotted_cpus = allotted_;
  if (!started_) {
    r.unavailable["all"] = "the monitor was not started";
    return r;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  Counters end = Read();
  // The high-water mark, read now: the sandbox removes the cgroup when it stops.
  if (!peak_file_.empty()) {
    auto peak = ToInt(target_.cgroup->Read("memory", peak_file_));
    if (peak) {
      r.memory_peak_bytes = *peak;
      r.memory_peak_scope = peak_scope_;
    } else {
      unavailable_["memory_peak"] = target_.cgroup->Dir("memory") + "/" + peak_file_ +
                                    " could not be read at the window's end";
    }
  }
  if (end.t_ns - last_.t_ns > options_.interval.count() / 10) timeline_.push_back(Between(last_, end));
  r.timeline = std::move(timeline_);
  r.duration_s = static_cast<double>(end.t_ns - first_.t_ns) / 1e9;
  // A family whose counters failed to read at any reading of the window has no whole-window
  // figure (a rate needs both ends) and a partial one would pass for the window's: it is
  // unavailable, with the first failure (which names the file and the errno text).
  faults_.insert(first_.faults.begin(), first_.faults.end());
  faults_.insert(end.faults.begin(), end.faults.end());
  for (const auto& [family, why] : faults_) {
    unavailable_[family] = why + " (during the window, so the window's figures are not given)";
  }
  r.monitor_cpu_s = static_cast<double>(thread_cpu_ns_.load()) / 1e9;
  r.unavailable = unavailable_;
  r.sources = sources_;
  r.methods = methods_;

  // Whole-window rates straight from the counters.
  Sample whole = Between(first_, end);
  r.per_cpu_mean = whole.per_cpu;
  auto put = [&](const std::string& key, std::optional<double> mean, auto get) {
    MetricSummary m;
    m.mean = mean;
    for (const auto& s : r.timeline) {
      std::optional<double> v = get(s);
      if (v) m.max = std::max(m.max.value_or(*v), *v);
      if (!mean && v) m.mean = m.mean.value_or(0) + *v;  // summed here, averaged below
    }
    if (!mean && m.mean) {
      size_t n = std::count_if(r.timeline.begin(), r.timeline.end(),
                               [&](const Sample& s) { return get(s).has_value(); });
      m.mean = *m.mean / static_cast<double>(n);
    }
    if (m.mean || m.max) r.summary[key] = m;
  };
  // Families that failed mid-window (faults_) keep no summary: see above.
  auto put_unless = [&](const char* family, const std::string& key, std::optional<double> mean, auto get) {
    if (!faults_.count(family)) put(key, mean, get);
  };
  put_unless("cpu", "cpu_used", whole.cpu_used, [](const Sample& s) { return s.cpu_used; });
  put_unless("cpu", "cpu_utilization", whole.cpu_utilization, [](const Sample& s) { return s.cpu_utilization; });
  put("net_rx_bytes_per_s", whole.net_rx_bytes_per_s,
      [](const Sample& s) { return s.net_rx_bytes_per_s; });
  put("net_tx_bytes_per_s", whole.net_tx_bytes_per_s,
      [](const Sample& s) { return s.net_tx_bytes_per_s; });
  put_unless("disk", "disk_read_bytes_per_s", whole.disk_read_bytes_per_s,
      [](const Sample& s) { return s.disk_read_bytes_per_s; });
  put_unless("disk", "disk_write_bytes_per_s", whole.disk_write_bytes_per_s,
      [](const Sample& s) { return s.disk_write_bytes_per_s; });
  put_unless("disk", "disk_read_iops", whole.disk_read_iops, [](const Sample& s) { return s.disk_read_iops; });
  put_unless("disk", "disk_write_iops", whole.disk_write_iops, [](const Sample& s) { return s.disk_write_iops; });
  put("mem_bandwidth_bytes_per_s", whole.mem_bandwidth_bytes_per_s,
      [](const Sample& s) { return s.mem_bandwidth_bytes_per_s; });
  put_unless("memory", "memory_bytes", std::nullopt, [](const Sample& s) -> std::optional<double> {
    if (!s.memory_bytes) return std::nullopt;
    return static_cast<double>(*s.memory_bytes);
  });
  put("llc_occupancy_bytes", std::nullopt, [](const Sample& s) -> std::optional<double> {
    if (!s.llc_occupancy_bytes) return std::nullopt;
    return static_cast<double>(*s.llc_occupancy_bytes);
  });
  return r;
}

std::optional<double> MonitorReport::Mean(const std::string& metric) const {
  auto it = summary.find(metric);
  if (it == summary.end()) return std::nullopt;
  return it->second.mean;
}

nlohmann::json MonitorReport::ToJson() const {
  nlohmann::json j;
  j["interval_s"] = static_cast<double>(interval.count()) / 1e9;
  j["duration_s"] = duration_s;
  j["cpus"] = cpus;
  j["allotted_cpus"] = allotted_cpus;
  j["monitor_cpu_s"] = monitor_cpu_s;
  j["sources"] = sources;
  j["unavailable"] = unavailable;
  j["methods"] = methods;
  // The kernel's figure beside the sampled one (summary.memory_bytes.max).
  j["memory_peak"] = {{"bytes", Opt(memory_peak_bytes)},
                      {"scope", memory_peak_bytes ? nlohmann::json(memory_peak_scope) : nlohmann::json(nullptr)}};
  nlohmann::json sum = nlohmann::json::object();
  for (const char* k : {"cpu_used", "cpu_utilization", "net_rx_bytes_per_s", "net_tx_bytes_per_s",
                        "disk_read_bytes_per_s", "disk_write_bytes_per_s", "disk_read_iops",
                        "disk_write_iops", "memory_bytes", "llc_occupancy_bytes",
                        "mem_bandwidth_bytes_per_s"}) {
    auto it = summary.find(k);
    if (it == summary.end()) {
      sum[k] = nullptr;
    } else {
      sum[k] = {{"mean", Opt(it->second.mean)}, {"max", Opt(it->second.max)}};
    }
  }
  sum["per_cpu_mean"] = per_cpu_mean.empty() ? nlohmann::json(nullptr) : nlohmann::json(per_cpu_mean);
  j["summary"] = sum;
  nlohmann::json tl = nlohmann::json::array();
  for (const auto& s : timeline) {
    tl.push_back({{"t_s", s.t_s},
                  {"cpu_used", Opt(s.cpu_used)},
                  {"cpu_utilization", Opt(s.cpu_utilization)},
                  {"per_cpu", s.per_cpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.per_cpu)},
                  {"net_rx_bytes_per_s", Opt(s.net_rx_bytes_per_s)},
                  {"net_tx_bytes_per_s", Opt(s.net_tx_bytes_per_s)},
                  {"disk_read_bytes_per_s", Opt(s.disk_read_bytes_per_s)},
                  {"disk_write_bytes_per_s", Opt(s.disk_write_bytes_per_s)},
                  {"disk_read_iops", Opt(s.disk_read_iops)},
                  {"disk_write_iops", Opt(s.disk_write_iops)},
                  {"memory_bytes", Opt(s.memory_bytes)},
                  {"llc_occupancy_bytes", Opt(s.llc_occupancy_bytes)},
                  {"mem_bandwidth_bytes_per_s", Opt(s.mem_bandwidth_bytes_per_s)}});
  }
  j["timeline"] = tl;
  return j;
}

namespace {
Result<MonitorReport> ReportFromJson(const nlohmann::json& j);
}  // namespace

Result<MonitorReport> MonitorReport::FromJson(const nlohmann::json& j) {
  try {
    return ReportFromJson(j);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("a monitor report with a field of the wrong type: ") + e.what());
  }
}

namespace {
Result<MonitorReport> ReportFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgument("a monitor report is a JSON object, got " + j.dump());
  MonitorReport r;
  Status bad;
  // A number, or nullopt for null/absent; anything else makes the document malformed.
  auto num = [&](const nlohmann::json& o, const char* key) -> std::optional<double> {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) {
      if (bad.ok()) bad = InvalidArgument(std::string("monitor report field '") + key + "' is not a number");
      return std::nullopt;
    }
    return it->get<double>();
  };
  auto integer = [&](const nlohmann::json& o, const char* key) -> std::optional<int64_t> {
    auto v = num(o, key);
    return v ? std::optional<int64_t>(static_cast<int64_t>(std::llround(*v))) : std::nullopt;
  };
  auto strings = [&](const char* key, std::map<std::string, std::string>* out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_object()) {
      if (bad.ok()) bad = InvalidArgument(std::string("monitor report field '") + key + "' is not an object");
      return;
    }
    for (const auto& [k, v] : it->items()) out->emplace(k, v.is_string() ? v.get<std::string>() : v.dump());
  };
  r.interval = std::chrono::nanoseconds(std::llround(num(j, "interval_s").value_or(0) * 1e9));
  r.duration_s = num(j, "duration_s").value_or(0);
  if (auto it = j.find("cpus"); it != j.end() && it->is_array()) {
    for (const auto& c : *it) {
      if (c.is_number_integer()) r.cpus.push_back(c.get<int>());
    }
  }
  r.allotted_cpus = num(j, "allotted_cpus").value_or(0);
  r.monitor_cpu_s = num(j, "monitor_cpu_s").value_or(0);
  strings("sources", &r.sources);
  strings("unavailable", &r.unavailable);
  strings("methods", &r.methods);
  if (auto it = j.find("memory_peak"); it != j.end() && it->is_object()) {
    r.memory_peak_bytes = integer(*it, "bytes");
    if (r.memory_peak_bytes) r.memory_peak_scope = it->value("scope", std::string());
  }
  if (auto it = j.find("summary"); it != j.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (k == "per_cpu_mean") {
        if (v.is_array()) {
          for (const auto& x : v) r.per_cpu_mean.push_back(x.is_number() ? x.get<double>() : 0.0);
        }
        continue;
      }
      if (!v.is_object()) continue;  // null: not measured
      r.summary[k] = MetricSummary{num(v, "mean"), num(v, "max")};
    }
  }
  if (auto it = j.find("timeline"); it != j.end() && it->is_array()) {
    for (const auto& t : *it) {
      if (!t.is_object()) return InvalidArgument("a monitor report's timeline holds a sample that is not an object");
      Sample s;
      s.t_s = num(t, "t_s").value_or(0);
      s.cpu_used = num(t, "cpu_used");
      s.cpu_utilization = num(t, "cpu_utilization");
      if (auto pc = t.find("per_cpu"); pc != t.end() && pc->is_array()) {
        for (const auto& x : *pc) s.per_cpu.push_back(x.is_number() ? x.get<double>() : 0.0);
      }
      s.net_rx_bytes_per_s = num(t, "net_rx_bytes_per_s");
      s.net_tx_bytes_per_s = num(t, "net_tx_bytes_per_s");
      s.disk_read_bytes_per_s = num(t, "disk_read_bytes_per_s");
      s.disk_write_bytes_per_s = num(t, "disk_write_bytes_per_s");
      s.disk_read_iops = num(t, "disk_read_iops");
      s.disk_write_iops = num(t, "disk_write_iops");
      s.memory_bytes = integer(t, "memory_bytes");
      s.llc_occupancy_bytes = integer(t, "llc_occupancy_bytes");
      s.mem_bandwidth_bytes_per_s = num(t, "mem_bandwidth_bytes_per_s");
      r.timeline.push_back(std::move(s));
    }
  }
  REAM_RETURN_IF_ERROR(bad);
  return r;
}
}  // namespace

}  // namespace ream
