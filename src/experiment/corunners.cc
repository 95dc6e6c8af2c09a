#include "experiment/corunners.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "experiment/load_driver.h"
#include "experiment/point_columns.h"
#include "experiment/run_events.h"
#include "platform/text.h"
#include "protocol/registry.h"
#include "spec/tenant_kinds.h"
#include "experiment/workload_launch.h"
#include "platform/net.h"
#include "topology/topology.h"

namespace ream {

Result<CorunnerKinds> CorunnerKinds::Make(Platform& p, SandboxKind& here, const TenantSandboxSettings& settings,
                                          const ExperimentSpec& spec) {
  CorunnerKinds kinds(here);
  const std::string subject_place = SubjectPlace(spec).Name();
  for (const CorunnerSpec& c : spec.corunners) {
    const std::string at = SpecAt(spec, c.line) + "[[corunner]] '" + c.name + "' sandbox = \"" + c.sandbox + "\": ";
    auto where = ParseTenantPlace(c.sandbox);
    if (!where.ok()) return InvalidArgument(at + where.status().message());
    auto own = MakeTenantSandboxKind(p, settings, *where, c.address, WorkloadUser(p, c.user));
    if (!own.ok()) return Status(own.status().code(), at + own.status().message());
    // On another host than the subject's: its CPUs are that host's, not the scenario's.
    if (where->row->needs_address && where->Name() != subject_place) kinds.remote_.insert(c.name);
    if (*own) kinds.own_[c.name] = std::move(own).value();
  }
  return kinds;
}

SandboxKind& CorunnerKinds::For(const CorunnerSpec& c) const {
  auto it = own_.find(c.name);
  return it == own_.end() ? *here_ : *it->second;
}

Result<std::vector<int>> CorunnerCpus(const ExperimentSpec& spec, const CorunnerSpec& c, const Prepared& prep,
                                      const std::string& scenario, bool remote) {
  const std::string at = SpecAt(spec, c.line) + "[[corunner]] '" + c.name + "' cpus = \"" + c.cpus + "\": ";
  if (remote) {
    // Another host's CPUs: its own list there (checked by that host's sandbox), else all of them.
    if (c.cpus == "subject" || c.cpus == "others") return std::vector<int>{};
    auto list = ParseCpuList(c.cpus);
    if (!list.ok()) return InvalidArgument(at + list.status().message());
    return *list;
  }
  auto subject = prep.scenario_cpus.find(scenario);
  if (subject == prep.scenario_cpus.end()) return InvalidArgument(at + "scenario " + scenario + " has no CPUs");
  if (c.cpus == "subject") return subject->second;
  std::vector<int> online;
  for (const auto& cpu : prep.topology.cpus) online.push_back(cpu.id);
  const auto& s = subject->second;
  const auto& g = prep.generator_cpus;
  auto has = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  // The physical core of `cpu` holds one of `cpus` (itself or an SMT sibling).
  auto core_holds = [&](int cpu, const std::vector<int>& cpus) {
    const LogicalCpu* l = prep.topology.cpu(cpu);
    if (!l) return has(cpus, cpu);
    for (int sibling : l->siblings) {
      if (has(cpus, sibling)) return true;
    }
    return false;
  };
  if (c.cpus == "others") {
    // Whole cores: a sibling of the subject's or the generator's CPU would share that core's
    // L1, L2 and pipeline with it, which "others" does not ask for (cpus = "siblings" does).
    std::vector<int> others;
    for (int cpu : online) {
      if (!core_holds(cpu, s) && !core_holds(cpu, g)) others.push_back(cpu);
    }
    if (others.empty()) {
      return InvalidArgument(at + "every online CPU (" + FormatCpuList(online) + ") is on a core of the subject's (" +
                             FormatCpuList(s) + ") or the generator's (" + FormatCpuList(g) + ") in scenario " +
                             scenario + "; share the subject's (cpus = \"subject\") or give a list");
    }
    return others;
  }
  if (c.cpus == "siblings") {
    // The other hyper-threads of the subject's cores: the seed's intra-core sharing, asked for.
    std::vector<int> siblings;
    for (int cpu : online) {
      if (!has(s, cpu) && core_holds(cpu, s)) siblings.push_back(cpu);
    }
    if (siblings.empty()) {
      return InvalidArgument(at + "the subject's cores in scenario " + scenario + " (CPUs " + FormatCpuList(s) +
                             ") have no other logical CPU" +
                             (prep.topology.has_smt() ? " (the scenario holds every thread of them)"
                                                      : " (this machine has no SMT siblings)"));
    }
    return siblings;
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

std::vector<std::string> CorunnerArgv(const CorunnerSpec& c, const std::string& ream_binary, int port, int threads,
                                      bool listen_everywhere) {
  std::vector<std::string> argv = {ream_binary, "corun", "--sched", ToString(c.sched)};
  if (c.restart) argv.push_back("--repeat");
  argv.push_back("--");
  for (std::string& a : c.kind->argv(c, {ream_binary, port, threads, listen_everywhere})) argv.push_back(std::move(a));
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
  bool remote_window = false;  // its host's agent samples the window (Sandbox::monitored_remotely)
  bool listen_everywhere = false;  // reached from outside its namespace or host (TenantStart)

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

CorunnerSet::CorunnerSet(Platform& p, const CorunnerKinds& kinds, const ExperimentSpec& spec, const Prepared& prep,
                         const PlannedRun& run, std::string state_dir)
    : p_(p), kinds_(kinds), spec_(spec), prep_(prep), run_(run), state_dir_(std::move(state_dir)) {
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
  const TenantKind& kind = *c.kind;
  SandboxKind& sandboxes = kinds_.For(c);
  REAM_ASSIGN_OR_RETURN(auto where, ParseTenantPlace(c.sandbox));
  REAM_ASSIGN_OR_RETURN(t.cpus, CorunnerCpus(spec_, c, prep_, run_.scenario, kinds_.Remote(c)));
  SandboxOptions so;
  // A node of its own (its own address, its network knobs) where its place gives one.
  so.partition = c.partition.ToPartitionSpec(where.row->own_network);
  so.partition.cpus = FormatCpuList(t.cpus);
  // Its own ways, apart from the subject's and the set's others (the run's placement plan).
  so.partition.llc_masks = prep_.placement.MasksOf(run_, &c);
  // The best-effort tier across cgroups: the co-runner's group yields to the subject's as its
  // tasks' SCHED_IDLE alone would not (measured: docs/colocation.md).
  so.partition.cpu_idle = c.sched == SchedClass::kIdle;
  // The CPUs are named explicitly; none is held back (a list may name the generator's CPU on
  // purpose, and the docs say what that costs).
  so.reserved_cpus = std::vector<int>{};
  so.capture_stdout = true;
  // What the program itself says on stderr goes into the error when it fails, beside `ream
  // corun`'s lines (stress-ng's reason is there, not on stdout).
  so.keep_stderr = true;
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
  if (c.load && kind.fills_port) {
    // A free port for "{port}" on the co-runner's host; a server that picks its own says it.
    REAM_ASSIGN_OR_RETURN(t.port, sandboxes.FreePort());
  }
  t.listen_everywhere = where.row->own_network || where.row->needs_address;
  std::vector<std::string> argv =
      CorunnerArgv(c, prep_.ream, t.port, std::max<int>(static_cast<int>(t.cpus.size()), 1), t.listen_everywhere);
  const std::string what = "co-runner '" + c.name + "' ('" + Join(argv) + "')";
  if (kind.prepare) REAM_RETURN_IF_ERROR(kind.prepare(p_, c).Annotate("starting " + what));
  auto started = sandboxes.Start(so, argv);
  if (!started.ok()) return started.status().Annotate("starting " + what);
  std::unique_ptr<Sandbox> sb = std::move(started).value();
  auto fail = [&](Status s) -> Status {
    if (!sb->Alive()) (void)sb->process().WaitForOutputEnd(std::chrono::milliseconds(500));
    (void)sb->Stop();
    std::string tail;
    // The program's own words first: why it failed is usually there.
    for (const std::string& l : sb->StderrTail(5)) tail += "\n    " + l;
    if (!tail.empty()) tail = "; its last stderr:" + tail;
    auto lines = sb->process().Lines();
    std::string out;
    for (size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) out += "\n    " + lines[i];
    if (!out.empty()) tail += "; its last output:" + out;
    return Status(s.code(), s.message() + tail);
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
  // `ream corun` says when the command started (or why it could not); then the kind's sign.
  if (Status s = wait_for("ream-corun started", true); !s.ok()) {
    if (s.code() == StatusCode::kCancelled) {
      (void)sb->Stop();
      return s;
    }
    return fail(s);
  }
  if (kind.readiness == TenantReadiness::kPrintsPort) {
    // "ready HOST:PORT ...": the port it picked.
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
    if (t->sandbox->monitored_remotely()) {
      // Sampled on its host by its agent, as a subject there is (Sandbox::monitored_remotely).
      Status s = t->sandbox->StartMonitorWindow(spec_.sample_interval);
      t->remote_window = s.ok();
      if (!s.ok()) t->monitor_error = s.message();
      continue;
    }
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
    if (t->remote_window) {
      t->remote_window = false;
      auto doc = t->sandbox->StopMonitorWindow();
      auto r = doc.ok() ? MonitorReport::FromJson(*doc) : Result<MonitorReport>(doc.status());
      if (r.ok()) {
        t->report = std::move(r).value();
      } else {
        t->monitor_error = "its host's monitor report: " + r.status().message();
      }
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
    // The subject's multigets, where its own protocol has a multi-key get; one key per get else.
    if (auto codec = MakeClientCodec(lo.protocol, lo.codec); !codec.ok() || (*codec)->capabilities().max_multiget_keys == 0) {
      lo.multiget = FixedDistribution(1);
    }
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
    // From this host's generator CPUs, wherever the co-runner runs.
    auto gen = kinds_.here().Start(go, argv);
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

TenantFiguresByName CorunnerSet::Figures() const {
  TenantFiguresByName all;
  for (const auto& t : tenants_) {
    TenantFigures f;
    const double window_s = static_cast<double>(t->window_end_ns - t->window_start_ns) / 1e9;
    f.window_s = window_s;
    if (t->report) {
      PointData d;
      FillFromMonitor(*t->report, &d);
      const PointRecord& r = d.point;
      f.cpu_util = r.cpu_util;
      f.cpu_s = r.server_cpu_s;
      f.mem_bytes = r.mem_bytes;
      f.net_rx_bps = r.net_rx_bps;
      f.net_tx_bps = r.net_tx_bps;
      f.disk_read_bps = r.disk_read_bps;
      f.disk_write_bps = r.disk_write_bps;
      f.mem_bw_bps = r.mem_bw_bps;
      f.llc_occupancy_bytes = r.llc_occupancy_bytes;
      f.unavailable = r.unavailable;
      if (r.server_cpu_s && window_s > 0) f.cpu_share = *r.server_cpu_s / window_s;
    } else {
      f.unavailable = {{"monitor", t->monitor_error.empty() ? "the co-runner was not running" : t->monitor_error}};
    }
    double run_time = 0;
    {
      std::lock_guard<std::mutex> l(t->mu);
      for (const auto& [at, seconds] : t->completions) {
        if (at >= t->window_start_ns && at <= t->window_end_ns) {
          ++f.completions;
          run_time += seconds;
        }
      }
    }
    if (f.completions) f.run_time_mean_s = run_time / static_cast<double>(f.completions);
    if (window_s > 0) f.completions_per_s = static_cast<double>(f.completions) / window_s;
    f.ended = t->ended_in_window;
    if (t->spec->load) {
      TenantLoadFigures l;
      l.target_qps = t->spec->load->qps;
      l.connections = t->spec->load->connections;
      l.protocol = t->spec->load->protocol;
      if (t->load_result) {
        PointData d;
        FillFromGenerator(*t->load_result, &d);
        const PointRecord& r = d.point;
        l.achieved_qps = r.achieved_qps;
        l.throughput_qps = r.throughput_qps;
        l.timely_ratio = r.timely_ratio;
        l.valid = r.valid;
        l.invalid_reasons = r.invalid_reasons;
        l.errors = r.errors;
        l.latency_mean_us = r.latency_mean_us;
        l.latency_p50_us = r.latency_p50_us;
        l.latency_p95_us = r.latency_p95_us;
        l.latency_p99_us = r.latency_p99_us;
      } else {
        l.unavailable = t->load_error.empty() ? "no load was run in this window" : t->load_error;
      }
      f.load = std::move(l);
    }
    all[t->spec->name] = std::move(f);
  }
  return all;
}

std::map<std::string, CorunnerSet::Progress> CorunnerSet::ReadProgress() const {
  std::map<std::string, Progress> out;
  for (const auto& t : tenants_) {
    Progress& pr = out[t->spec->name];
    {
      std::lock_guard<std::mutex> l(t->mu);
      pr.completions = static_cast<int64_t>(t->completions.size());
    }
    pr.running = t->sandbox && t->sandbox->Alive();
    if (!pr.running) {
      pr.cpu_why = "not running";
    } else if (t->sandbox->monitored_remotely()) {
      pr.cpu_why = "sampled on its own host, at the end of the point only";
    } else {
      pr.cpu_ns = ReadCpuNs(TargetOf(*t->sandbox), &pr.cpu_why);
    }
  }
  return out;
}

Status CorunnerSet::Move(const std::string& name, const Knob& knob, double level) {
  for (auto& t : tenants_) {
    if (t->spec->name != name) continue;
    if (!t->sandbox || !t->sandbox->Alive()) return NotFound("co-runner '" + name + "' is not running");
    return t->sandbox->Move(knob, level);
  }
  return NotFound("the run's co-runner set has no co-runner '" + name + "'");
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

CorunnerSetRecord CorunnerSet::Describe() const {
  CorunnerSetRecord set;
  for (const auto& t : tenants_) {
    const CorunnerSpec& c = *t->spec;
    CorunnerRecord r;
    r.name = c.name;
    r.argv = CorunnerArgv(c, prep_.ream, t->port, static_cast<int>(t->cpus.size()), t->listen_everywhere);
    r.cpus = c.cpus;
    r.cpu_list = FormatCpuList(t->cpus);
    r.sched = ToString(c.sched);
    r.restart = c.restart;
    r.partition = c.partition.ToJson();
    r.partition_label = c.partition.Label();
    r.sandbox = t->sandbox ? t->sandbox->name() : std::string();
    r.place = c.sandbox;
    r.kind = c.kind->key;
    // What its throughput is counted in: the QPS it served under a load of its own, its
    // completions when it is run again each time it ends, else its kind's unit.
    r.throughput_unit = c.load      ? ToString(ThroughputUnit::kQps)
                        : c.restart ? ToString(ThroughputUnit::kCompletionsPerSecond)
                                    : c.kind->throughput_unit;
    // The kind's own values: only the fields its keys filled are set, and only those are written.
    r.batch = c.batch;
    r.pressure = c.pressure;
    r.intensity = c.intensity;
    r.builtin = c.builtin;
    if (c.load) r.load = CorunnerLoadRecord{c.load->qps, c.load->connections, c.load->protocol};
    // Read by the analysis's sensitivity profile (analysis/interference.h).
    if (c.interference) r.interference_load = c.interference_load;
    set.corunners.push_back(std::move(r));
  }
  return set;
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
