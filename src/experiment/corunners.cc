#include "experiment/corunners.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "batch/batch.h"
#include "experiment/load_driver.h"
#include "experiment/point_columns.h"
#include "experiment/run_events.h"
#include "experiment/text.h"
#include "experiment/workload_launch.h"
#include "platform/net.h"
#include "topology/topology.h"

namespace ream {

Result<std::vector<int>> CorunnerCpus(const ExperimentSpec& spec, const CorunnerSpec& c, const Prepared& prep,
                                      const std::string& scenario) {
  const std::string at = SpecAt(spec, c.line) + "[[corunner]] '" + c.name + "' cpus = \"" + c.cpus + "\": ";
  auto subject = prep.scenario_cpus.find(scenario);
  if (subject == prep.scenario_cpus.end()) return InvalidArgument(at + "scenario " + scenario + " has no CPUs");
  if (c.cpus == "subject") return subject->second;
  std::vector<int> online;
  for (const auto& cpu : prep.topology.cpus) online.push_back(cpu.id);
  if (c.cpus == "others") {
    std::vector<int> others;
    for (int cpu : online) {
      const auto& s = subject->second;
      const auto& g = prep.generator_cpus;
      if (std::find(s.begin(), s.end(), cpu) == s.end() && std::find(g.begin(), g.end(), cpu) == g.end()) {
        others.push_back(cpu);
      }
    }
    if (others.empty()) {
      return InvalidArgument(at + "every online CPU (" + FormatCpuList(online) + ") is the subject's (" +
                             FormatCpuList(subject->second) + ") or the generator's (" +
                             FormatCpuList(prep.generator_cpus) + ") in scenario " + scenario +
                             "; share the subject's (cpus = \"subject\") or give a list");
    }
    return others;
  }
  auto list = ParseCpuList(c.cpus);
  if (!list.ok()) return InvalidArgument(at + list.status().message());
  for (int cpu : *list) {
    if (std::find(online.begin(), online.end(), cpu) == online.end()) {
      return InvalidArgument(at + "CPU " + std::to_string(cpu) + " is not an online CPU of this machine (" +
                             FormatCpuList(online) + ")");
    }
  }
  return *list;
}

std::vector<std::string> CorunnerArgv(const CorunnerSpec& c, const std::string& ream_binary, int port, int threads) {
  std::vector<std::string> argv = {ream_binary, "corun", "--sched", ToString(c.sched)};
  if (c.restart) argv.push_back("--repeat");
  argv.push_back("--");
  if (!c.batch.empty()) {
    for (const std::string& a : {ream_binary, std::string("batch"), c.batch, std::string("--seconds"),
                                 Fmt("%.6g", c.batch_seconds)}) {
      argv.push_back(a);
    }
  } else if (!c.pressure.empty()) {
    // Runs until the co-runner's sandbox stops it (SIGTERM), which `ream pressure` handles.
    for (const std::string& a : {ream_binary, std::string("pressure"), c.pressure, std::string("--intensity"),
                                 Fmt("%.6g", c.intensity)}) {
      argv.push_back(a);
    }
  } else if (!c.builtin.empty()) {
    // Its port is the one it prints in its ready line (the subject's builtins do the same).
    for (const std::string& a : {ream_binary, std::string("serve"), c.builtin, std::string("--port"), std::string("0"),
                                 std::string("--threads"), std::to_string(std::max(threads, 1))}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), c.args.begin(), c.args.end());
  } else {
    for (const std::string& a : c.command) argv.push_back(FillPlaceholders(a, {{"{port}", std::to_string(port)}}));
  }
  return argv;
}

// One co-runner: its sandbox, its monitor over the current window, and what `ream corun` said
// (read on the sandbox's stdout thread, hence the mutex).
struct CorunnerSet::Tenant {
  const CorunnerSpec* spec = nullptr;
  std::vector<int> cpus;
  std::unique_ptr<Sandbox> sandbox;
  std::optional<Monitor> monitor;
  std::optional<MonitorReport> report;
  std::string monitor_error;
  int64_t window_start_ns = 0, window_end_ns = 0;
  std::string ended_in_window;

  // With [corunner.load]: the port it serves on, and the window's `ream load` (its sandbox and
  // its stdout), then what it measured or why it measured nothing.
  int port = 0;
  std::unique_ptr<Sandbox> load_gen;
  std::shared_ptr<CapturedOutput> load_out;
  int64_t load_deadline_ns = 0;
  std::optional<nlohmann::json> load_result;
  std::string load_error;

  mutable std::mutex mu;
  std::vector<std::pair<int64_t, double>> completions;  // (when seen, monotonic ns; its run time, s)
  std::string ended;                                   // "killed by signal 9 ... after N completion(s)"

  // The co-runner's end in words: the sandbox's (it knows an OOM kill) or `ream corun`'s line.
  std::string HowEnded() {
    std::string said;
    {
      std::lock_guard<std::mutex> l(mu);
      said = ended;
    }
    std::string sb = sandbox ? sandbox->ExitDescription() : std::string("not running");
    if (sb.find("memory limit") != std::string::npos || said.empty()) return sb;
    return said;
  }
};

CorunnerSet::CorunnerSet(Platform& p, SandboxKind& kind, const ExperimentSpec& spec, const Prepared& prep,
                         const PlannedRun& run, std::string state_dir)
    : p_(p), kind_(kind), spec_(spec), prep_(prep), run_(run), state_dir_(std::move(state_dir)) {
  if (run.tenant_set < 0) return;
  for (const auto& name : spec.colocation.sets.at(static_cast<size_t>(run.tenant_set))) {
    auto t = std::make_unique<Tenant>();
    t->spec = spec.FindCorunner(name);
    tenants_.push_back(std::move(t));
  }
}

CorunnerSet::~CorunnerSet() { (void)Stop(); }

Result<std::unique_ptr<Sandbox>> CorunnerSet::StartOne(Tenant& t, const std::function<bool()>& interrupted) {
  const CorunnerSpec& c = *t.spec;
  REAM_ASSIGN_OR_RETURN(t.cpus, CorunnerCpus(spec_, c, prep_, run_.scenario));
  SandboxOptions so;
  so.partition = c.partition.ToPartitionSpec(false);
  so.partition.cpus = FormatCpuList(t.cpus);
  // The best-effort tier across cgroups: the co-runner's group yields to the subject's as its
  // tasks' SCHED_IDLE alone would not (measured: docs/colocation.md).
  so.partition.cpu_idle = c.sched == SchedClass::kIdle;
  // The CPUs are named explicitly; none is held back (a list may name the generator's CPU on
  // purpose, and the docs say what that costs).
  so.reserved_cpus = std::vector<int>{};
  so.capture_stdout = true;
  so.user = WorkloadUser(p_, c.user);
  if (!state_dir_.empty()) so.state_dir = state_dir_;
  {
    std::lock_guard<std::mutex> l(t.mu);
    t.completions.clear();
    t.ended.clear();
  }
  Tenant* tp = &t;
  Platform* pp = &p_;
  so.on_stdout_line = [tp, pp](const std::string& line) {
    static const std::string kCompleted = "ream-corun completed ";
    static const std::string kEnded = "ream-corun ended ";
    if (line.rfind(kCompleted, 0) == 0) {
      double seconds = 0;
      if (auto at = line.find("seconds="); at != std::string::npos) seconds = std::atof(line.c_str() + at + 8);
      std::lock_guard<std::mutex> l(tp->mu);
      tp->completions.emplace_back(pp->MonotonicNanos(), seconds);
    } else if (line.rfind(kEnded, 0) == 0) {
      std::lock_guard<std::mutex> l(tp->mu);
      tp->ended = line.substr(kEnded.size());
    }
  };
  if (c.load && !c.command.empty()) {
    // A free port for "{port}"; a builtin picks its own and says it.
    REAM_ASSIGN_OR_RETURN(t.port, kind_.FreePort());
  }
  std::vector<std::string> argv = CorunnerArgv(c, prep_.ream, t.port, static_cast<int>(t.cpus.size()));
  const std::string what = "co-runner '" + c.name + "' ('" + Join(argv) + "')";
  if (!c.batch.empty()) {
    // A helper built with ream, where the co-runner's user can reach it (batch/batch.h).
    if (const batch::BatchProgram* prog = batch::FindBatchProgram(c.batch)) {
      REAM_RETURN_IF_ERROR(batch::PublishHelper(p_, *prog).Annotate("starting " + what));
    }
  }
  auto started = kind_.Start(so, argv);
  if (!started.ok()) return started.status().Annotate("starting " + what);
  std::unique_ptr<Sandbox> sb = std::move(started).value();
  auto fail = [&](Status s) -> Status {
    std::string tail;
    if (!sb->Alive()) (void)sb->process().WaitForOutputEnd(std::chrono::milliseconds(500));
    auto lines = sb->process().Lines();
    for (size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) tail += "\n    " + lines[i];
    (void)sb->Stop();
    return Status(s.code(), s.message() + (tail.empty() ? "" : "; its last output:" + tail));
  };
  const int64_t deadline_ns = p_.MonotonicNanos() + std::chrono::nanoseconds(c.ready_timeout).count();
  std::string matched;
  auto wait_for = [&](const std::string& needle, bool prefix) -> Status {
    while (true) {
      if (interrupted()) return Cancelled("interrupted while starting " + what);
      if (!sb->Alive()) return Unavailable(what + " ended before becoming ready: " + sb->ExitDescription());
      int64_t left_ns = deadline_ns - p_.MonotonicNanos();
      if (left_ns <= 0) {
        return Timeout(what + " printed no line " + (prefix ? "starting with" : "containing") + " \"" + needle +
                       "\" within " + HumanSeconds(std::chrono::duration<double>(c.ready_timeout).count()) +
                       " (raise its ready_timeout if it is only slow)");
      }
      auto step = std::min<int64_t>(left_ns / 1000000 + 1, 100);
      auto line = sb->WaitForLine(
          [&](const std::string& l) { return prefix ? l.rfind(needle, 0) == 0 : l.find(needle) != std::string::npos; },
          std::chrono::milliseconds(step));
      if (line.ok()) {
        matched = *line;
        return Status::Ok();
      }
    }
  };
  // `ream corun` says when the command started (or why it could not); then the spec's line.
  if (Status s = wait_for("ream-corun started", true); !s.ok()) {
    if (s.code() == StatusCode::kCancelled) {
      (void)sb->Stop();
      return s;
    }
    return fail(s);
  }
  if (!c.builtin.empty()) {
    // "ready HOST:PORT ...": the port the builtin picked.
    if (Status s = wait_for("ready ", true); !s.ok()) return fail(s);
    t.port = BuiltinReadyPort(matched);
    if (t.port <= 0) return fail(Unavailable(what + " printed a readiness line without a port: " + matched));
  } else if (!c.ready_line.empty()) {
    if (Status s = wait_for(c.ready_line, false); !s.ok()) return fail(s);
  } else if (c.load) {
    // A server under a load of its own is ready once it accepts a connection on its port.
    while (true) {
      if (interrupted()) {
        (void)sb->Stop();
        return Cancelled("interrupted while starting " + what);
      }
      if (!sb->Alive()) return fail(Unavailable(what + " ended before becoming ready: " + sb->ExitDescription()));
      const int64_t left_ns = deadline_ns - p_.MonotonicNanos();
      if (left_ns <= 0) {
        return fail(Timeout(what + " accepted no connection on " + sb->address() + ":" + std::to_string(t.port) +
                            " within " + HumanSeconds(std::chrono::duration<double>(c.ready_timeout).count()) +
                            " (raise its ready_timeout if it is only slow)"));
      }
      if (net::Connect(sb->address(), t.port, std::min<int64_t>(left_ns, 100'000'000)).ok()) break;
      p_.SleepFor(std::chrono::milliseconds(20));
    }
  }
  // A program that generates its own work is ready once it runs; it must still run after the
  // settling time (one that dies at once is a bad co-runner, not a measurement).
  const int64_t settle_end = p_.MonotonicNanos() + std::chrono::nanoseconds(c.settle).count();
  while (p_.MonotonicNanos() < settle_end) {
    if (interrupted()) {
      (void)sb->Stop();
      return Cancelled("interrupted while starting " + what);
    }
    if (!sb->Alive()) break;
    p_.SleepFor(std::chrono::milliseconds(10));
  }
  if (!sb->Alive()) {
    return fail(Unavailable(what + " ended while settling: " + sb->ExitDescription()));
  }
  return sb;
}

Result<std::vector<std::string>> CorunnerSet::EnsureRunning(const std::function<bool()>& interrupted) {
  std::vector<std::string> restarted;
  for (auto& t : tenants_) {
    if (t->sandbox && t->sandbox->Alive()) continue;
    if (t->sandbox) {
      restarted.push_back("'" + t->spec->name + "' " + t->HowEnded());
      (void)t->sandbox->Stop();
      t->sandbox.reset();
    }
    auto sb = StartOne(*t, interrupted);
    if (!sb.ok()) {
      (void)Stop();
      return sb.status();
    }
    t->sandbox = std::move(sb).value();
  }
  return restarted;
}

void CorunnerSet::WindowStarted() {
  for (auto& t : tenants_) {
    t->report.reset();
    t->monitor_error.clear();
    t->ended_in_window.clear();
    t->window_start_ns = p_.MonotonicNanos();
    if (!t->sandbox) continue;
    t->monitor.emplace(p_, TargetOf(*t->sandbox), MonitorOptions{.interval = spec_.sample_interval});
    if (Status s = t->monitor->Start(); !s.ok()) {
      t->monitor_error = s.message();
      t->monitor.reset();
    }
  }
}

void CorunnerSet::WindowEnded() {
  for (auto& t : tenants_) {
    t->window_end_ns = p_.MonotonicNanos();
    if (t->monitor) {
      t->report = t->monitor->Stop();
      t->monitor.reset();
    }
    if (!t->sandbox) {
      t->ended_in_window = "was not running";
    } else if (!t->sandbox->Alive()) {
      // `ream corun` prints its end before it exits; give its stdout a moment to be read.
      (void)t->sandbox->process().WaitForOutputEnd(std::chrono::milliseconds(200));
      t->ended_in_window = t->HowEnded();
    }
  }
}

Status CorunnerSet::StartLoads(const LoadOptions& window) {
  const std::vector<int>& generator_cpus = prep_.generator_cpus;
  uint64_t index = 0;
  size_t loaded = 0;
  for (auto& t : tenants_) {
    ++index;
    t->load_result.reset();
    t->load_error.clear();
    if (!t->spec->load) continue;
    ++loaded;
    const CorunnerLoadSpec& load = *t->spec->load;
    if (!t->sandbox || !t->sandbox->Alive()) {
      t->load_error = "the co-runner was not running when its load was to start";
      continue;
    }
    LoadOptions lo = window;
    lo.host = t->sandbox->address();
    lo.port = t->port;
    lo.protocol = load.protocol;
    lo.qps = load.qps;
    lo.connections = load.connections;
    lo.threads = 1;
    lo.session = SessionLoad{};
    lo.keep_awake = false;
    lo.cpus.clear();
    // It shares the generator's CPUs with the subject's generator: it yields on every turn of its
    // spin, so it never holds a CPU the subject's generator is due on (spinning, it made every
    // shared point of the subject invalid by lateness here, 6 Dec 2026).
    lo.wait = Wait::kYield;
    lo.send_floor = LoadOptions::SendFloorMode::kOff;  // its load is the subject's background, not a point
    // Its own arrivals, not the subject's sequence again.
    lo.seed = window.seed * 1000003ull + 7919ull * index;
    std::vector<std::string> argv = LoadArgv(lo);
    argv.insert(argv.begin(), prep_.ream);
    // Its one thread on the next generator CPU after the subject's generator threads (the same
    // CPU when there are not enough: two vCPUs here).
    if (!generator_cpus.empty()) {
      const size_t at = (static_cast<size_t>(std::max(window.threads, 1)) + loaded - 1) % generator_cpus.size();
      argv.insert(argv.end() - 2, {"--cpus", std::to_string(generator_cpus[at])});
    }
    auto out = std::make_shared<CapturedOutput>();
    SandboxOptions go = GeneratorSandbox(generator_cpus, state_dir_, out);
    auto gen = kind_.Start(go, argv);
    if (!gen.ok()) {
      for (auto& u : tenants_) {
        if (!u->load_gen) continue;
        (void)u->load_gen->Stop();
        u->load_gen.reset();
      }
      return gen.status().Annotate("starting the load of co-runner '" + t->spec->name + "'");
    }
    t->load_gen = std::move(gen).value();
    t->load_out = out;
    t->load_deadline_ns = p_.MonotonicNanos() + lo.warmup_ns + lo.duration_ns + lo.response_timeout_ns +
                          15'000'000'000;
  }
  return Status::Ok();
}

void CorunnerSet::CollectLoads() {
  for (auto& t : tenants_) {
    if (!t->load_gen) continue;
    while (t->load_gen->Alive() && p_.MonotonicNanos() < t->load_deadline_ns) {
      p_.SleepFor(std::chrono::milliseconds(10));
    }
    const bool ended = !t->load_gen->Alive();
    if (ended) (void)t->load_gen->process().WaitForOutputEnd(std::chrono::milliseconds(2000));
    const std::string exit = t->load_gen->ExitDescription();
    (void)t->load_gen->Stop();
    t->load_gen.reset();
    std::string text;
    {
      std::lock_guard<std::mutex> lock(t->load_out->first);
      text = t->load_out->second;
    }
    auto j = ExtractGeneratorJson(text);
    if (j.ok()) {
      t->load_result = std::move(j).value();
    } else {
      t->load_error = ended ? "its generator " + exit + " without a result: " + j.status().message()
                            : "its generator did not finish within 15 s of its response timeout";
    }
  }
}

nlohmann::json CorunnerSet::Figures() const {
  nlohmann::json all = nlohmann::json::object();
  for (const auto& t : tenants_) {
    nlohmann::json j;
    const double window_s = static_cast<double>(t->window_end_ns - t->window_start_ns) / 1e9;
    j["window_s"] = window_s;
    if (t->report) {
      PointData d;
      FillFromMonitor(*t->report, &d);
      const PointRecord& r = d.point;
      auto put = [&](const char* key, const std::optional<double>& v) { j[key] = v ? nlohmann::json(*v) : nlohmann::json(); };
      put("cpu_util", r.cpu_util);
      put("cpu_s", r.server_cpu_s);
      put("mem_bytes", r.mem_bytes);
      put("net_rx_bps", r.net_rx_bps);
      put("net_tx_bps", r.net_tx_bps);
      put("disk_read_bps", r.disk_read_bps);
      put("disk_write_bps", r.disk_write_bps);
      put("mem_bw_bps", r.mem_bw_bps);
      put("llc_occupancy_bytes", r.llc_occupancy_bytes);
      j["unavailable"] = r.unavailable;
      if (r.server_cpu_s && window_s > 0) j["cpu_share"] = *r.server_cpu_s / window_s;
    } else {
      j["unavailable"] = {{"monitor", t->monitor_error.empty() ? "the co-runner was not running" : t->monitor_error}};
    }
    int64_t n = 0;
    double run_time = 0;
    {
      std::lock_guard<std::mutex> l(t->mu);
      for (const auto& [at, seconds] : t->completions) {
        if (at >= t->window_start_ns && at <= t->window_end_ns) {
          ++n;
          run_time += seconds;
        }
      }
    }
    j["completions"] = n;
    j["run_time_mean_s"] = n ? nlohmann::json(run_time / static_cast<double>(n)) : nlohmann::json();
    if (window_s > 0) j["completions_per_s"] = static_cast<double>(n) / window_s;
    j["ended"] = t->ended_in_window;
    if (t->spec->load) {
      nlohmann::json l = {{"target_qps", t->spec->load->qps}, {"connections", t->spec->load->connections},
                          {"protocol", t->spec->load->protocol}};
      if (t->load_result) {
        PointData d;
        FillFromGenerator(*t->load_result, &d);
        const PointRecord& r = d.point;
        auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
        l["achieved_qps"] = opt(r.achieved_qps);
        l["throughput_qps"] = opt(r.throughput_qps);
        l["timely_ratio"] = opt(r.timely_ratio);
        l["valid"] = r.valid ? nlohmann::json(*r.valid) : nlohmann::json();
        l["invalid_reasons"] = r.invalid_reasons;
        l["errors"] = r.errors ? nlohmann::json(*r.errors) : nlohmann::json();
        l["latency_us"] = {{"mean", opt(r.latency_mean_us)},
                           {"p50", opt(r.latency_p50_us)},
                           {"p95", opt(r.latency_p95_us)},
                           {"p99", opt(r.latency_p99_us)}};
      } else {
        l["unavailable"] = t->load_error.empty() ? "no load was run in this window" : t->load_error;
      }
      j["load"] = l;
    }
    all[t->spec->name] = j;
  }
  return all;
}

std::vector<std::string> CorunnerSet::EndedDuringWindow() const {
  std::vector<std::string> out;
  for (const auto& t : tenants_) {
    if (!t->ended_in_window.empty()) {
      out.push_back("co-runner '" + t->spec->name + "' " + t->ended_in_window + " during the window");
    }
  }
  return out;
}

nlohmann::json CorunnerSet::Describe() const {
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& t : tenants_) {
    const CorunnerSpec& c = *t->spec;
    nlohmann::json j = {{"name", c.name},
                        {"argv", CorunnerArgv(c, prep_.ream, t->port, static_cast<int>(t->cpus.size()))},
                        {"cpus", c.cpus},
                        {"cpu_list", FormatCpuList(t->cpus)},
                        {"sched", ToString(c.sched)},
                        {"restart", c.restart},
                        {"partition", c.partition.ToJson()},
                        {"partition_label", c.partition.Label()},
                        {"sandbox", t->sandbox ? t->sandbox->name() : std::string()}};
    if (!c.batch.empty()) j["batch"] = c.batch;
    if (!c.pressure.empty()) j["pressure"] = c.pressure, j["intensity"] = c.intensity;
    if (!c.builtin.empty()) j["builtin"] = c.builtin;
    if (c.load) {
      j["load"] = {{"qps", c.load->qps}, {"connections", c.load->connections}, {"protocol", c.load->protocol}};
    }
    // Read by the analysis's sensitivity profile (analysis/interference.h).
    if (c.interference) j["interference_load"] = c.interference_load;
    cs.push_back(j);
  }
  return {{"corunners", cs}};
}

Status CorunnerSet::Stop() {
  Status first;
  for (auto& t : tenants_) {
    if (t->load_gen) {
      (void)t->load_gen->Stop();
      t->load_gen.reset();
    }
    if (t->monitor) {
      (void)t->monitor->Stop();
      t->monitor.reset();
    }
    if (!t->sandbox) continue;
    Status s = t->sandbox->Stop();
    if (!s.ok() && first.ok()) first = s.Annotate("stopping co-runner '" + t->spec->name + "'");
    t->sandbox.reset();
  }
  return first;
}

}  // namespace ream
