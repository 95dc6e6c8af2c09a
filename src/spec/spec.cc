// The experiment spec's parser: ParseSpec reads the top level and hands each section to its
// parser (spec/sections.h), then checks what only the whole spec can tell.
#include "spec/spec.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <toml++/toml.h>

#include "protocol/registry.h"
#include "spec/sections.h"
#include "spec/toml_section.h"

namespace ream {
namespace {

// The workload's protocol against the codec table, with the [load] options its codec takes:
// an unknown protocol, a malformed HTTP path, or a get/set mix the protocol cannot send is an
// error here, before any workload starts.
Status CheckProtocol(const ExperimentSpec& spec) {
  const WorkloadSpec& w = spec.workload;
  const std::string at = spec.source + ":" + std::to_string(w.line) + ": ";
  std::vector<std::string> names = ClientCodecNames();
  if (std::find(names.begin(), names.end(), w.protocol) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument(at + "workload.protocol \"" + w.protocol + "\" is not one ream speaks (" + known + ")");
  }
  CodecOptions co;
  co.value_bytes = spec.load.value_sizes.fixed() ? static_cast<size_t>(spec.load.value_sizes.a) : 0;
  co.http_path = spec.load.http_path;
  co.http_method = spec.load.http_method;
  auto codec = MakeClientCodec(w.protocol, co);
  if (!codec.ok()) return InvalidArgument(at + "workload.protocol / [load]: " + codec.status().message());
  if (const Distribution& m = spec.load.multiget; !(m.fixed() && m.a == 1) && (*codec)->capabilities().max_multiget_keys == 0) {
    return InvalidArgument(spec.source + ": load.multiget = " + m.name + ": protocol \"" + w.protocol +
                           "\" has no multi-key get here (memcached and redis have)");
  }
  if (CodecCapabilities caps = (*codec)->capabilities(); !caps.supports_set && spec.load.get_ratio < 1) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%g", spec.load.get_ratio);
    return InvalidArgument(spec.source + ": load.get_ratio = " + ratio + ": protocol \"" + w.protocol +
                           "\" cannot send sets: " + caps.no_sets_because + "; use get_ratio = 1");
  }
  return Status::Ok();
}

}  // namespace

std::string ToString(SchedClass c) {
  return c == SchedClass::kIdle ? "idle" : c == SchedClass::kBatch ? "batch" : "normal";
}
std::optional<SchedClass> SchedClassFromString(const std::string& s) {
  if (s == "normal") return SchedClass::kNormal;
  if (s == "batch") return SchedClass::kBatch;
  if (s == "idle") return SchedClass::kIdle;
  return std::nullopt;
}

std::string ColocationSpec::Label(size_t i) const {
  std::string l;
  for (const auto& n : sets.at(i)) l += (l.empty() ? "" : "+") + n;
  return l;
}

const CorunnerSpec* ExperimentSpec::FindCorunner(const std::string& n) const {
  for (const auto& c : corunners) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

std::string ToString(ReadyBy r) { return r == ReadyBy::kLine ? "line" : "port"; }
std::string ToString(RestartEvery r) { return r == RestartEvery::kPoint ? "point" : "sweep"; }
std::string ToString(SweepMode m) { return m == SweepMode::kKnee ? "knee" : "grid"; }

nlohmann::json KeepAwakeJson(KeepAwakeMode k) {
  return k == KeepAwakeMode::kGenerator ? nlohmann::json("generator") : nlohmann::json(k == KeepAwakeMode::kAll);
}

std::optional<ReadyBy> ReadyByFromString(const std::string& s) {
  for (ReadyBy r : {ReadyBy::kPort, ReadyBy::kLine}) {
    if (ToString(r) == s) return r;
  }
  return std::nullopt;
}

std::optional<RestartEvery> RestartEveryFromString(const std::string& s) {
  for (RestartEvery r : {RestartEvery::kSweep, RestartEvery::kPoint}) {
    if (ToString(r) == s) return r;
  }
  return std::nullopt;
}

std::optional<SweepMode> SweepModeFromString(const std::string& s) {
  for (SweepMode m : {SweepMode::kGrid, SweepMode::kKnee}) {
    if (ToString(m) == s) return m;
  }
  return std::nullopt;
}

PartitionSpec PartitionValues::ToPartitionSpec(bool node) const {
  PartitionSpec p;
  p.node = node;
  for (const auto& [key, parsed] : values) {
    parsed.knob->apply(parsed.value, &p);
    if (parsed.knob->needs_node) p.node = true;
  }
  return p;
}

std::string PartitionValues::SupportOf(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? "" : it->second.knob->support;
}

std::string PartitionValues::Label() const {
  if (knobs.empty()) return "default";
  std::string s;
  for (const auto& [k, v] : knobs) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

nlohmann::json PartitionValues::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : knobs) j[k] = v;
  return j;
}

Result<ExperimentSpec> ParseSpec(const std::string& text, const std::string& source, const KnobTable& knobs,
                                 const TenantKindTable& tenant_kinds) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return InvalidArgument(source + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " +
                           std::string(e.description()));
  }
  ExperimentSpec spec;
  spec.source = source;
  spec.text = text;
  TomlSection top(root, "", source,
              {"name", "description", "seed", "repetitions", "scenarios", "generator_cpus",
               "sample_interval", "node", "workload", "load", "sweep", "partitions", "qos",
               "sensitivity", "model", "sandbox", "nodes", "corunner", "colocation", "interference", "manager"});
  REAM_RETURN_IF_ERROR(top.Unknown());
  REAM_RETURN_IF_ERROR(top.String("name", &spec.name));
  if (spec.name.empty()) {
    return InvalidArgument(source + ":1: 'name' is required (the experiment's name in the results database)");
  }
  REAM_RETURN_IF_ERROR(top.String("description", &spec.description));
  int64_t seed = 1;
  REAM_RETURN_IF_ERROR(top.Int("seed", &seed, 0, INT64_MAX));
  spec.seed = static_cast<uint64_t>(seed);
  REAM_RETURN_IF_ERROR(top.Int("repetitions", &spec.repetitions, 1, 1000));
  std::vector<int> lines;
  REAM_RETURN_IF_ERROR(top.StringList("scenarios", &spec.scenarios, &lines));
  if (auto* n = top.Get("scenarios")) {
    if (spec.scenarios.empty()) return top.Error(*n, "scenarios", "is empty; name at least one (\"1-ST\")");
    std::set<std::string> seen;
    for (size_t i = 0; i < spec.scenarios.size(); ++i) {
      if (!seen.insert(spec.scenarios[i]).second) {
        return top.Error(*n, "scenarios", "lists \"" + spec.scenarios[i] + "\" twice");
      }
      spec.scenario_lines[spec.scenarios[i]] = lines[i];
    }
  } else {
    spec.scenario_lines["1-ST"] = 0;
  }
  REAM_RETURN_IF_ERROR(top.String("generator_cpus", &spec.generator_cpus));
  REAM_RETURN_IF_ERROR(top.Duration("sample_interval", &spec.sample_interval,
                                    std::chrono::milliseconds(10), std::chrono::milliseconds(60000)));
  REAM_RETURN_IF_ERROR(top.Bool("node", &spec.node));

  Status err;
  const toml::table* w = top.Table("workload", &err);
  REAM_RETURN_IF_ERROR(err);
  if (!w) return InvalidArgument(source + ": [workload] is required (builtin = \"kv\", or command = [...])");
  REAM_RETURN_IF_ERROR(ParseWorkload(TomlSection(*w, "workload", source,
                                             {"builtin", "args", "command", "protocol", "port", "ready",
                                              "ready_line", "ready_timeout", "threads", "restart", "user",
                                              "batch", "batch_seconds"}),
                                     &spec.workload));
  // The subject is a tenant too: of the kind whose key it gives (ParseWorkload checked there is
  // one of builtin, command and batch).
  for (const TenantKind* k : tenant_kinds.rows()) {
    if (w->contains(k->key)) spec.workload.kind = k;
  }
  if (const toml::table* l = top.Table("load", &err)) {
    REAM_RETURN_IF_ERROR(ParseLoad(TomlSection(*l, "load", source,
                                           {"arrival", "key_dist", "keys", "get_ratio", "value_bytes", "key_bytes",
                                            "multiget", "preset",
                                            "connections", "threads", "warmup", "duration", "until", "schedule", "window",
                                            "timely_tolerance", "response_timeout", "http_path",
                                            "http_method", "wait", "response_timing", "keep_awake", "session_chunks",
                                            "chunk_bytes", "bitrate", "attempts"}),
                                   &spec.load));
  }
  REAM_RETURN_IF_ERROR(err);
  const toml::table* sw = top.Table("sweep", &err);
  REAM_RETURN_IF_ERROR(err);
  if (spec.load.schedule) {
    // The schedule is the load of each run: one level, at its mean.
    if (sw) {
      return InvalidArgument(source + ": [sweep] is given beside [load] schedule: a schedule is the load of each run "
                             "(its mean is the level); leave [sweep] out");
    }
    spec.sweep.qps = {spec.load.schedule->Mean()};
    // Its windows are judged one by one: a stretch the generator could not keep invalidates those
    // windows, not the run, so an invalid schedule is measured again only for the host
    // ([load] attempts), never for its own sake.
    spec.sweep.remeasure_invalid = 0;
  } else if (!sw) {
    return InvalidArgument(source + ": [sweep] is required (qps = [...], a range, or mode = \"knee\")");
  } else {
    REAM_RETURN_IF_ERROR(ParseSweep(TomlSection(*sw, "sweep", source,
                                            {"mode", "axis", "qps", "sessions", "copies", "probe_start", "probe_duration", "start", "stop", "steps", "step", "low", "high",
                                             "precision", "max_points", "confirm", "remeasure_invalid",
                                             "stop_after_invalid", "on_failure"}),
                                    &spec.sweep));
  }
  if (const toml::table* p = top.Table("partitions", &err)) {
    std::vector<std::string> known = knobs.SpecKeys();
    known.push_back("set");
    TomlSection section(*p, "partitions", source, known);
    REAM_RETURN_IF_ERROR(section.Unknown());
    REAM_RETURN_IF_ERROR(ParsePartitions(section, knobs, &spec.partitions));
  }
  REAM_RETURN_IF_ERROR(err);
  if (spec.partitions.empty()) spec.partitions.push_back({});
  if (const toml::node* sens = top.Get("sensitivity")) {
    std::vector<const toml::table*> tables;
    if (const toml::table* t = sens->as_table()) {
      tables.push_back(t);
    } else if (const toml::array* a = sens->as_array(); a && !a->empty() && a->is_array_of_tables()) {
      for (const auto& e : *a) tables.push_back(e.as_table());
    } else {
      return top.Error(*sens, "sensitivity", "must be a table ([sensitivity]) or tables ([[sensitivity]])");
    }
    std::vector<std::vector<PartitionValues>> values(tables.size());
    for (size_t i = 0; i < tables.size(); ++i) {
      SensitivitySpec one;
      REAM_RETURN_IF_ERROR(ParseSensitivity(TomlSection(*tables[i], "sensitivity", source, {"knob", "values"}),
                                            knobs, &one, &values[i]));
      spec.sensitivity.push_back(std::move(one));
    }
    REAM_RETURN_IF_ERROR(ExpandSensitivity(source, spec.sensitivity, values, &spec.partitions));
  }
  if (const toml::table* m = top.Table("model", &err)) {
    REAM_RETURN_IF_ERROR(ParseModel(TomlSection(*m, "model", source, {"messages_per_op", "range", "service_scv"}),
                                    &spec.model));
  }
  REAM_RETURN_IF_ERROR(err);
  if (!spec.model.service_scv) {
    spec.model.service_scv = ServiceScvFromArgs(spec.workload, &spec.model.service_scv_source);
  }
  if (const toml::table* sb = top.Table("sandbox", &err)) {
    TomlSection t(*sb, "sandbox", source, {"kind", "accel", "uri", "image", "boot_timeout"});
    REAM_RETURN_IF_ERROR(t.Unknown());
    REAM_RETURN_IF_ERROR(t.OneOf("kind", &spec.sandbox.kind, {"process", "vm"}));
    REAM_RETURN_IF_ERROR(t.OneOf("accel", &spec.sandbox.accel, {"tcg", "kvm"}));
    REAM_RETURN_IF_ERROR(t.String("uri", &spec.sandbox.uri));
    REAM_RETURN_IF_ERROR(t.String("image", &spec.sandbox.image));
    REAM_RETURN_IF_ERROR(t.Duration("boot_timeout", &spec.sandbox.boot_timeout, std::chrono::milliseconds(1000),
                                    std::chrono::milliseconds(3600000)));
  }
  REAM_RETURN_IF_ERROR(err);
  if (const toml::table* q = top.Table("qos", &err)) {
    REAM_RETURN_IF_ERROR(ParseQos(TomlSection(*q, "qos", source,
                                          {"percentile", "target", "service_multiplier", "at_utilization",
                                           "min_timely_ratio", "max_rate_error", "validity", "max_distortion"}),
                                  &spec.qos));
  }
  REAM_RETURN_IF_ERROR(err);
  if (const toml::table* n = top.Table("nodes", &err)) {
    REAM_RETURN_IF_ERROR(ParseNodes(TomlSection(*n, "nodes", source,
                                                {"clients", "workload", "workload_address", "ssh_config", "ssh_options",
                                                 "on_agent_loss", "client_cpus", "link_rate"}),
                                    spec.partitions, spec.node, &spec.nodes));
  }
  REAM_RETURN_IF_ERROR(err);
  REAM_RETURN_IF_ERROR(ParseCorunners(top, knobs, tenant_kinds, &spec));
  if (const toml::table* m = top.Table("manager", &err)) {
    REAM_RETURN_IF_ERROR(ParseManager(
        TomlSection(*m, "manager", source,
                    {"policy", "period", "window", "grow_below", "shrink_above", "skip_windows", "peak_qps",
                     "disable_above_load", "enable_below_load", "stop_growth_below", "shrink_below",
                     "cooldown_windows", "resource", "floor"}),
        knobs, &spec));
  }
  REAM_RETURN_IF_ERROR(err);
  if (!spec.workload.batch.empty()) {
    REAM_RETURN_IF_ERROR(CheckBatchSubject(top, spec));
    return spec;
  }
  if (spec.sweep.axis == LoadAxis::kCopies) {
    return InvalidArgument(source + ": [sweep] copies = [...] is the load of a batch subject ([workload] batch = "
                           "\"NAME\"); a server's load is qps = [...] (or sessions)");
  }
  REAM_RETURN_IF_ERROR(CheckProtocol(spec));
  if (spec.sweep.axis == LoadAxis::kSessions) {
    // Session load streams over HTTP, one connection per session, on one generator thread.
    if (spec.load.bitrate_bps == 0) {
      return InvalidArgument(source + ": [load] bitrate is required with [sweep] axis = \"sessions\" (the video's, "
                             "e.g. \"4mbit\")");
    }
    if (spec.workload.protocol != "http") {
      return InvalidArgument(source + ": [sweep] axis = \"sessions\" streams over HTTP: set [workload] protocol = "
                             "\"http\" (it is \"" + spec.workload.protocol + "\")");
    }
    if (spec.load.connections_auto || spec.load.threads_auto) {
      return InvalidArgument(source + ": [load] connections / threads = \"auto\" do not apply to axis = "
                             "\"sessions\" (each session has its connection; one thread drives them)");
    }
  }
  if (spec.sweep.mode == SweepMode::kKnee && (spec.load.connections_auto || spec.load.threads_auto)) {
    return InvalidArgument(source + ": [load] connections / threads = \"auto\" chooses them at a grid's top level; "
                           "give a knee search fixed ones");
  }
  if (spec.sweep.mode == SweepMode::kKnee && spec.load.duration < std::chrono::milliseconds(500)) {
    return InvalidArgument(source + ": [load] duration below 500ms is too short for a knee search's percentiles");
  }
  if (spec.load.until && spec.nodes.remote()) {
    // Each agent would judge its own share; the merged point's percentile is nobody's to stop.
    return InvalidArgument(source + ": [load] until measures with this host's generator; client nodes ([nodes]) "
                           "each measure a fixed window: give [load] duration instead");
  }
  if ((spec.load.schedule || spec.load.window.count() > 0) && spec.nodes.remote()) {
    return InvalidArgument(source + ": [load] schedule and window run on this host's generator; client nodes "
                           "([nodes]) are given one rate each and report their run once it is over");
  }
  if (spec.load.until && (spec.load.schedule || spec.load.window.count() > 0)) {
    return InvalidArgument(source + ": [load] until ends a point once one rate's percentile is known; a schedule and "
                           "windows need the window's fixed length: give one or the other");
  }
  if (spec.load.until && spec.sweep.axis == LoadAxis::kSessions) {
    return InvalidArgument(source + ": [load] until judges a percentile of request latencies; a session load is "
                           "measured by deadline misses over its fixed [load] duration");
  }
  return spec;
}

Result<ExperimentSpec> LoadSpecFile(Platform& platform, const std::string& path) {
  // A link could swap what runs (the spec names the command run) after the user read the file.
  if (platform.IsSymlink(path)) {
    auto target = platform.RealPath(path);
    return InvalidArgument("refusing experiment spec " + path + ": it is a symbolic link" +
                           (target.ok() ? " to " + *target : std::string()) + "; give the file itself");
  }
  auto text = platform.ReadFile(path);
  if (!text.ok()) {
    StatusCode c = text.status().code();
    if (c == StatusCode::kNotFound || c == StatusCode::kPermissionDenied) {
      return NotFound("cannot read experiment spec " + path + ": no such file or not readable");
    }
    return IoError("error reading experiment spec " + path + ": " + text.status().message());
  }
  return ParseSpec(*text, path);
}

nlohmann::json ExperimentSpec::ToJson() const {
  using nlohmann::json;
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  json j;
  j["name"] = name;
  j["description"] = description;
  j["seed"] = seed;
  j["repetitions"] = repetitions;
  j["scenarios"] = scenarios;
  j["generator_cpus"] = generator_cpus;
  j["sample_interval_ms"] = ms(sample_interval);
  j["node"] = node;
  if (!nodes.clients.empty() || !nodes.workload_host.empty()) {
    j["nodes"] = {{"clients", nodes.clients},
                  {"workload_address", nodes.workload_address},
                  {"ssh_config", nodes.ssh_config},
                  {"ssh_options", nodes.ssh_options},
                  {"on_agent_loss", nodes.on_agent_loss}};
    if (nodes.link_rate_bps) j["nodes"]["link_rate_bps"] = *nodes.link_rate_bps;
    if (!nodes.workload_host.empty()) j["nodes"]["workload"] = "ssh:" + nodes.workload_host;
  }
  j["workload"] = {{"builtin", workload.builtin},   {"args", workload.args},
                   {"command", workload.command},   {"protocol", workload.protocol},
                   {"port", workload.port},         {"ready", ToString(workload.ready)},
                   {"ready_line", workload.ready_line},
                   {"ready_timeout_ms", ms(workload.ready_timeout)},
                   {"threads", workload.threads},   {"restart", ToString(workload.restart)}};
  if (!workload.user.empty()) j["workload"]["user"] = workload.user;
  if (!workload.batch.empty()) {
    j["workload"]["batch"] = workload.batch;
    j["workload"]["batch_seconds"] = workload.batch_seconds;
  }
  j["load"] = {{"arrival", load.arrival},     {"key_dist", load.key_dist},
               {"keys", load.keys},           {"get_ratio", load.get_ratio},
               {"value_bytes", load.value_sizes.fixed() ? json(static_cast<int64_t>(load.value_sizes.a)) : json(load.value_sizes.name)},
               {"connections", load.connections},
               {"threads", load.threads},     {"warmup_ms", ms(load.warmup)},
               {"duration_ms", ms(load.duration)},
               {"timely_tolerance_us", std::chrono::duration<double, std::micro>(load.timely_tolerance).count()},
               {"response_timeout_ms", ms(load.response_timeout)},
               {"http_path", load.http_path},  {"http_method", load.http_method},
               {"wait", load.wait},
               {"keep_awake", KeepAwakeJson(load.keep_awake)},
               {"response_timing", load.response_timing},
               {"attempts", load.attempts}};
  // Only when asked, so a spec without it keeps its stored form.
  if (load.until) j["load"]["until"] = load.until->Text();
  if (load.schedule) j["load"]["schedule"] = load.schedule->text;
  if (load.window.count() > 0) j["load"]["window_ms"] = ms(load.window);
  // Sizes and multigets only when asked, so a spec without them keeps its stored form.
  if (!(load.key_sizes.fixed() && load.key_sizes.a == 16)) {
    j["load"]["key_bytes"] = load.key_sizes.fixed() ? json(static_cast<int64_t>(load.key_sizes.a)) : json(load.key_sizes.name);
  }
  if (!(load.multiget.fixed() && load.multiget.a == 1)) {
    j["load"]["multiget"] = load.multiget.fixed() ? json(static_cast<int64_t>(load.multiget.a)) : json(load.multiget.name);
  }
  if (!load.preset.empty()) j["load"]["preset"] = load.preset;
  j["sweep"] = {{"mode", ToString(sweep.mode)},           {"qps", sweep.qps},
                {"low", sweep.low},             {"high", sweep.high},
                {"precision", sweep.precision}, {"max_points", sweep.max_points},
                {"confirm", sweep.confirm},
                {"remeasure_invalid", sweep.remeasure_invalid},
                {"stop_after_invalid", sweep.stop_after_invalid},
                {"on_failure", sweep.on_failure}};
  if (sweep.auto_range) {
    j["sweep"]["qps"] = "auto";
    j["sweep"]["steps"] = sweep.auto_levels;
    j["sweep"]["probe_start"] = sweep.probe_start_qps;
    j["sweep"]["probe_duration_ms"] = sweep.probe_duration.count();
  }
  if (sweep.axis == LoadAxis::kCopies) {
    j["sweep"]["axis"] = "copies";
    j["sweep"]["copies"] = sweep.qps;
  }
  if (sweep.axis == LoadAxis::kSessions) {
    // Only a sessions sweep carries these, so a qps spec's JSON is what it always was.
    j["sweep"]["axis"] = "sessions";
    j["sweep"]["sessions"] = sweep.qps;
    j["sweep"].erase("qps");
    j["load"]["session_chunks"] = load.session_chunks;
    j["load"]["chunk_bytes"] = load.chunk_bytes;
    j["load"]["bitrate"] = load.bitrate;
    j["load"]["bitrate_bps"] = load.bitrate_bps;
  }
  json parts = json::array();
  for (const auto& p : partitions) parts.push_back(p.ToJson());
  j["partitions"] = parts;
  if (!sensitivity.empty()) {
    json sens = json::array();
    for (const auto& t : sensitivity) sens.push_back({{"knob", t.knob}, {"values", t.values}});
    j["sensitivity"] = sens;
  }
  // Only a non-default sandbox is written, so the stored specs of process runs stay as before.
  if (sandbox.kind != "process") {
    j["sandbox"] = {{"kind", sandbox.kind},
                    {"accel", sandbox.accel},
                    {"uri", sandbox.uri},
                    {"image", sandbox.image},
                    {"boot_timeout_s", std::chrono::duration<double>(sandbox.boot_timeout).count()}};
  }
  j["model"] = {{"messages_per_op", model.messages_per_op},
                {"range", {model.range_low, model.range_high}},
                {"range_given", model.range_given},
                {"service_scv", model.service_scv ? json(*model.service_scv) : json(nullptr)},
                {"service_scv_source", model.service_scv_source}};
  if (!corunners.empty()) {
    json cs = json::array();
    for (const auto& c : corunners) {
      json e = {{"name", c.name},         {"command", c.command},       {"cpus", c.cpus},
                {"sched", ToString(c.sched)}, {"restart", c.restart},   {"ready_line", c.ready_line},
                {"ready_timeout_ms", ms(c.ready_timeout)}, {"settle_ms", ms(c.settle)},
                {"partition", c.partition.ToJson()}};
      if (c.kind && c.kind->describe) c.kind->describe(c, &e);
      if (c.sandbox != "process") e["sandbox"] = c.sandbox;
      if (!c.address.empty()) e["address"] = c.address;
      if (c.interference) e["interference_load"] = c.interference_load;
      if (!c.user.empty()) e["user"] = c.user;
      cs.push_back(e);
    }
    j["corunners"] = cs;
    json sets = json::array();
    for (size_t i = 0; i < colocation.sets.size(); ++i) sets.push_back(colocation.sets[i]);
    j["colocation"] = {{"alone", colocation.alone}, {"sets", sets}};
  }
  if (manager.given) {
    // Only with [manager], so every other spec's stored form is as before.
    json res = json::array();
    for (const auto& r : manager.resources) {
      res.push_back({{"knob", r.knob->key}, {"tenant", r.tenant}, {"unit", r.unit_text}, {"min", r.min_text},
                     {"max", r.max_text}});
      if (r.start) res.back()["start"] = r.start_text;
    }
    json mj = {{"policy", manager.policy},     {"period_ms", manager.period.count()},
               {"window_ms", manager.window.count()}, {"resources", res}, {"floor", manager.floor_texts}};
    if (manager.peak_qps > 0) mj["peak_qps"] = manager.peak_qps;
    if (manager.policy == "parties") {
      mj["grow_below"] = manager.grow_below;
      mj["shrink_above"] = manager.shrink_above;
      mj["skip_windows"] = manager.skip_windows;
    } else {
      mj["disable_above_load"] = manager.disable_above_load;
      mj["enable_below_load"] = manager.enable_below_load;
      mj["stop_growth_below"] = manager.stop_growth_below;
      mj["shrink_below"] = manager.shrink_below;
      mj["cooldown_windows"] = manager.cooldown_windows;
    }
    j["manager"] = mj;
  }
  j["qos"] = {{"percentile", qos.percentile},
              {"target_us", qos.target_us ? json(*qos.target_us) : json(nullptr)},
              {"service_multiplier", qos.service_multiplier},
              {"at_utilization", qos.at_utilization},
              {"min_timely_ratio", qos.min_timely_ratio},
              {"max_rate_error", qos.max_rate_error},
              {"validity", qos.validity},
              {"max_distortion", qos.max_distortion}};
  return j;
}

}  // namespace ream
