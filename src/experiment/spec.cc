// The experiment spec's parser: one function per section, over experiment/toml_section.h.
#include "experiment/spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <sstream>

#include <toml++/toml.h>

#include "batch/batch.h"
#include "experiment/toml_section.h"
#include "load/session_schedule.h"
#include "partition/spec.h"
#include "pressure/pressure.h"
#include "workloads/builtins.h"
#include "workloads/service_time.h"
#include "protocol/registry.h"

namespace ream {
namespace {

Status ParseWorkload(const TomlSection& s, WorkloadSpec* w) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  w->line = static_cast<int>(s.table().source().begin.line);
  const std::vector<std::string> builtins = BuiltinWorkloads().Names();
  REAM_RETURN_IF_ERROR(s.OneOf("builtin", &w->builtin, builtins));
  REAM_RETURN_IF_ERROR(s.StringList("args", &w->args));
  REAM_RETURN_IF_ERROR(s.StringList("command", &w->command));
  REAM_RETURN_IF_ERROR(s.String("protocol", &w->protocol));
  REAM_RETURN_IF_ERROR(s.Int("port", &w->port, 0, 65535));
  std::string ready = ToString(w->ready);
  REAM_RETURN_IF_ERROR(s.OneOf("ready", &ready, {"port", "line"}));
  w->ready = *ReadyByFromString(ready);
  REAM_RETURN_IF_ERROR(s.String("ready_line", &w->ready_line));
  REAM_RETURN_IF_ERROR(s.Duration("ready_timeout", &w->ready_timeout,
                                  std::chrono::milliseconds(100), std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.Int("threads", &w->threads, 0, 1024));
  std::string restart = ToString(w->restart);
  REAM_RETURN_IF_ERROR(s.OneOf("restart", &restart, {"sweep", "point"}));
  w->restart = *RestartEveryFromString(restart);
  REAM_RETURN_IF_ERROR(s.String("user", &w->user));
  REAM_RETURN_IF_ERROR(s.String("batch", &w->batch));
  REAM_RETURN_IF_ERROR(s.Number("batch_seconds", &w->batch_seconds, 0.1, 3600));
  const std::string where = s.source() + ":" + std::to_string(w->line) + ": [workload] ";
  if (s.Get("batch_seconds") && w->batch.empty()) {
    return InvalidArgument(where + "batch_seconds applies to a batch subject (batch = \"NAME\")");
  }
  if (!w->batch.empty()) {
    if (!w->builtin.empty() || !w->command.empty()) {
      return InvalidArgument(where + "needs exactly one of 'builtin', 'command' and 'batch'");
    }
    if (!batch::FindBatchProgram(w->batch)) {
      return InvalidArgument(where + "batch = \"" + w->batch + "\" is not a batch program (known: " +
                             batch::BatchProgramNames() + ")");
    }
    // A batch program serves no requests and runs one thread per copy: the server keys say
    // nothing about it.
    for (const char* key : {"args", "protocol", "port", "ready", "ready_line", "threads", "restart"}) {
      if (s.Get(key)) {
        return InvalidArgument(where + key + " is for a server; a batch subject runs `ream batch " + w->batch +
                               "` in each copy (its load is [sweep] copies)");
      }
    }
    if (s.Get("user") && (w->user.empty() || w->user.find_first_of(" \t\n/:") != std::string::npos)) {
      return InvalidArgument(where + "user \"" + w->user + "\" is not an account name");
    }
    return Status::Ok();
  }
  if (s.table().contains("user") &&
      (w->user.empty() || w->user.find_first_of(" \t\n/:") != std::string::npos)) {
    return InvalidArgument(where + "user \"" + w->user +
                           "\" is not an account name (\"ream\", \"nobody\", or \"root\" to keep ream's privileges)");
  }
  if (w->builtin.empty() == w->command.empty()) {
    std::string names;
    for (size_t i = 0; i < builtins.size(); ++i) {
      names += (i == 0 ? "" : i + 1 == builtins.size() ? " or " : ", ") + ("\"" + builtins[i] + "\"");
    }
    return InvalidArgument(where + "needs exactly one of 'builtin' (" + names + "), 'command' (an argv array) and "
                                   "'batch' (a program of `ream batch --list`)");
  }
  if (!w->builtin.empty()) {
    // Each builtin speaks its own protocol (ream's; nginx's HTTP for "stream"): the default.
    const std::string& speaks = BuiltinWorkloads().Find(w->builtin)->protocol;
    if (!s.Get("protocol")) w->protocol = speaks;
    if (w->protocol != speaks) {
      return InvalidArgument(where + "a builtin server speaks protocol \"" + speaks + "\" (builtin \"" + w->builtin +
                             "\"), not \"" + w->protocol + "\"");
    }
  }
  if (!w->command.empty()) {
    if (!w->args.empty()) {
      return InvalidArgument(where + "'args' is for a builtin; put arguments in 'command'");
    }
    bool has_placeholder = std::any_of(w->command.begin(), w->command.end(), [](const std::string& a) {
      return a.find("{port}") != std::string::npos;
    });
    if (w->port == 0 && !has_placeholder) {
      return InvalidArgument(where + "an external command needs 'port' (where it listens) or a "
                                     "\"{port}\" placeholder in 'command'");
    }
    if (w->ready == ReadyBy::kLine && w->ready_line.empty()) {
      return InvalidArgument(where + "ready = \"line\" needs 'ready_line' (text the command "
                                     "prints on stdout when it is ready)");
    }
  }
  return Status::Ok();
}

Status ParseLoad(const TomlSection& s, LoadSpec* l) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  REAM_RETURN_IF_ERROR(s.OneOf("arrival", &l->arrival, {"exponential", "constant"}));
  if (auto arrival = ParseArrival(l->arrival); arrival.ok()) {
    l->arrival_spec = *arrival;
  } else {
    return s.Error(*s.Get("arrival"), "arrival", arrival.status().message());
  }
  REAM_RETURN_IF_ERROR(s.String("key_dist", &l->key_dist));
  if (auto* n = s.Get("key_dist")) {
    bool ok = l->key_dist == "uniform";
    if (l->key_dist.rfind("zipf:", 0) == 0) {
      char* end = nullptr;
      double theta = std::strtod(l->key_dist.c_str() + 5, &end);
      ok = end && *end == '\0' && end != l->key_dist.c_str() + 5 && theta > 0 && theta < 1;
    } else if (l->key_dist == "zipf") {
      l->key_dist = "zipf:0.99";
      ok = true;
    }
    if (!ok) {
      return s.Error(*n, "key_dist", "is \"" + l->key_dist +
                                         "\"; it must be \"uniform\" or \"zipf:THETA\" with 0 < THETA < 1");
    }
  }
  if (auto kd = ParseKeyDist(l->key_dist); kd.ok()) {
    l->key_dist_spec = *kd;
  } else {
    const toml::node* n = s.Get("key_dist");
    if (!n) return kd.status();
    return s.Error(*n, "key_dist", kd.status().message());
  }
  REAM_RETURN_IF_ERROR(s.Int("keys", &l->keys, 1, int64_t{1} << 40));
  REAM_RETURN_IF_ERROR(s.Number("get_ratio", &l->get_ratio, 0.0, 1.0));
  REAM_RETURN_IF_ERROR(s.Int("value_bytes", &l->value_bytes, 0, 16 << 20));
  // "auto": the fewest that keep the top level timely (experiment/load_range.h: ClientChoices).
  for (auto [key, flag, value] : {std::tuple{"connections", &l->connections_auto, &l->connections},
                                  std::tuple{"threads", &l->threads_auto, &l->threads}}) {
    const toml::node* n = s.Get(key);
    if (n && n->is_string()) {
      if (n->as_string()->get() != "auto") return s.Error(*n, key, "must be an integer, or \"auto\"");
      *flag = true;
      continue;
    }
    REAM_RETURN_IF_ERROR(s.Int(key, value, 1, std::string(key) == "threads" ? 1024 : 100000));
  }
  REAM_RETURN_IF_ERROR(s.Duration("warmup", &l->warmup, std::chrono::milliseconds(0),
                                  std::chrono::milliseconds(3600000)));
  REAM_RETURN_IF_ERROR(s.Duration("duration", &l->duration, std::chrono::milliseconds(100),
                                  std::chrono::milliseconds(24 * 3600000)));
  REAM_RETURN_IF_ERROR(s.Duration("timely_tolerance", &l->timely_tolerance,
                                  std::chrono::microseconds(0), std::chrono::microseconds(10000000)));
  REAM_RETURN_IF_ERROR(s.Duration("response_timeout", &l->response_timeout, std::chrono::milliseconds(10),
                                  std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.String("http_path", &l->http_path));
  if (auto* n = s.Get("http_path"); n && (l->http_path.empty() || l->http_path[0] != '/')) {
    return s.Error(*n, "http_path", "is \"" + l->http_path + "\"; it must start with '/' (e.g. \"/item/{key}\")");
  }
  REAM_RETURN_IF_ERROR(s.OneOf("http_method", &l->http_method, {"auto", "GET", "POST"}));
  REAM_RETURN_IF_ERROR(s.OneOf("wait", &l->wait, {"auto", "sleep", "spin", "yield"}));
  REAM_RETURN_IF_ERROR(s.OneOf("response_timing", &l->response_timing, {"kernel", "packet", "user"}));
  REAM_RETURN_IF_ERROR(s.Int("attempts", &l->attempts, 1, 100));
  if (const toml::node* n = s.Get("keep_awake"); n && n->is_string()) {
    const std::string v = n->value<std::string>().value_or("");
    if (v != "generator" && v != "all") {
      return s.Error(*n, "keep_awake", "is \"" + v + "\"; it must be true, false, \"all\" (= true) or \"generator\" (the "
                                       "generator's CPUs only)");
    }
    l->keep_awake = v == "all" ? KeepAwakeMode::kAll : KeepAwakeMode::kGenerator;
  } else {
    bool on = false;
    REAM_RETURN_IF_ERROR(s.Bool("keep_awake", &on));
    l->keep_awake = on ? KeepAwakeMode::kAll : KeepAwakeMode::kOff;
  }
  // Session load's chunks (sweep axis = "sessions"; load/session_load.h).
  REAM_RETURN_IF_ERROR(s.Int("session_chunks", &l->session_chunks, 1, 1'000'000));
  if (const toml::node* n = s.Get("chunk_bytes")) {
    if (n->is_integer()) {
      l->chunk_bytes = n->value<int64_t>().value();
    } else if (n->is_string()) {
      auto b = ParseBytes(n->as_string()->get());
      if (!b.ok()) return s.Error(*n, "chunk_bytes", b.status().message());
      l->chunk_bytes = *b;
    } else {
      return s.Error(*n, "chunk_bytes", "must be a size in bytes (262144 or \"256k\")");
    }
    if (l->chunk_bytes < 1 || static_cast<uint64_t>(l->chunk_bytes) > kMaxChunkBytes) {
      return s.Error(*n, "chunk_bytes", "must be in 1.." + std::to_string(kMaxChunkBytes) + " bytes");
    }
  }
  REAM_RETURN_IF_ERROR(s.String("bitrate", &l->bitrate));
  if (const toml::node* n = s.Get("bitrate")) {
    auto b = ParseBitRate(l->bitrate);
    if (!b.ok() || *b < 1) return s.Error(*n, "bitrate", b.ok() ? "must be above 0" : b.status().message());
    l->bitrate_bps = *b;
  }
  return Status::Ok();
}

// A load level must be a positive, finite rate.
Status CheckRate(const TomlSection& s, const toml::node& n, const std::string& key, double v) {
  if (!(v > 0) || !std::isfinite(v)) {
    std::ostringstream m;
    m << "is " << v << "; a load level must be a rate > 0 requests/s";
    return s.Error(n, key, m.str());
  }
  return Status::Ok();
}

Result<double> NumberOf(const TomlSection& s, const toml::node& n, const std::string& key) {
  if (!n.is_number()) return s.Error(n, key, "must be a number (requests per second)");
  return n.is_integer() ? static_cast<double>(n.value<int64_t>().value()) : n.value<double>().value();
}

// axis = "sessions": a grid of whole session counts, `sessions = [1, 4, 8]` or start/stop/steps.
// The knee search and the probes of qps = "auto" search a rate; a session count is chosen by
// the spec.
Status ParseSessionSweep(const TomlSection& s, SweepSpec* w) {
  REAM_RETURN_IF_ERROR(s.OneOf("on_failure", &w->on_failure, {"continue", "stop"}));
  REAM_RETURN_IF_ERROR(s.Int("stop_after_invalid", &w->stop_after_invalid, 0, 1000));
  const std::string where = s.source() + ":" + std::to_string(s.table().source().begin.line) + ": [sweep] ";
  if (w->mode != SweepMode::kGrid) {
    return s.Error(*s.Get("mode"), "mode", "is \"knee\"; axis = \"sessions\" sweeps a grid (sessions = [...])");
  }
  for (const char* k : {"qps", "low", "high", "precision", "max_points", "confirm", "probe_start", "probe_duration", "step"}) {
    if (auto* n = s.Get(k)) {
      return s.Error(*n, k, "does not apply to axis = \"sessions\" (give sessions = [...] or start/stop/steps)");
    }
  }
  w->remeasure_invalid = 0;
  REAM_RETURN_IF_ERROR(s.Int("remeasure_invalid", &w->remeasure_invalid, 0, 1000));
  auto whole = [&](const toml::node& n, const char* key) -> Result<double> {
    if (!n.is_integer() || n.value<int64_t>().value() < 1 || n.value<int64_t>().value() > 10000) {
      return s.Error(n, key, "must be a whole number of sessions in 1..10000");
    }
    return static_cast<double>(n.value<int64_t>().value());
  };
  if (const toml::node* list = s.Get("sessions")) {
    if (s.Get("start") || s.Get("stop") || s.Get("steps")) {
      return s.Error(*list, "sessions", "and a range (start/stop/steps) are both given; use one");
    }
    const toml::array* a = list->as_array();
    if (!a || a->empty()) return s.Error(*list, "sessions", "must be a non-empty array of session counts");
    for (const auto& e : *a) {
      REAM_ASSIGN_OR_RETURN(double v, whole(e, "sessions"));
      w->qps.push_back(v);
    }
  } else if (s.Get("start") || s.Get("stop")) {
    if (!s.Get("start") || !s.Get("stop") || !s.Get("steps")) {
      return InvalidArgument(where + "a sessions range needs 'start', 'stop' and 'steps'");
    }
    REAM_ASSIGN_OR_RETURN(double start, whole(*s.Get("start"), "start"));
    REAM_ASSIGN_OR_RETURN(double stop, whole(*s.Get("stop"), "stop"));
    if (stop < start) return s.Error(*s.Get("stop"), "stop", "is below 'start'");
    int64_t steps = 0;
    REAM_RETURN_IF_ERROR(s.Int("steps", &steps, 1, 10000));
    for (int64_t i = 0; i < steps; ++i) {
      double v = steps == 1 ? start : std::round(start + (stop - start) * static_cast<double>(i) / static_cast<double>(steps - 1));
      if (w->qps.empty() || w->qps.back() != v) w->qps.push_back(v);
    }
  } else {
    return InvalidArgument(where + "axis = \"sessions\" needs 'sessions' (a list of session counts) or 'start', "
                                   "'stop' and 'steps'");
  }
  std::vector<double> sorted = w->qps;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return InvalidArgument(where + "the session counts repeat a value; each level is measured once per run (use repetitions)");
  }
  w->qps = sorted;
  return Status::Ok();
}

// A batch subject's load axis: `copies = [1, 2]`, SPECrate's concurrent copies, each level a
// whole number of copies; nothing is searched (a batch job has no QoS knee).
Status ParseCopiesSweep(const TomlSection& s, SweepSpec* w) {
  const toml::node* list = s.Get("copies");
  if (w->mode != SweepMode::kGrid) return s.Error(*s.Get("mode"), "mode", "is \"knee\"; copies = [...] is a grid");
  if (auto* n = s.Get("axis"); n && w->axis != LoadAxis::kCopies) {
    return s.Error(*n, "axis", "is not \"copies\", yet copies = [...] is given");
  }
  for (const char* k : {"qps", "sessions", "low", "high", "precision", "max_points", "confirm", "probe_start",
                        "probe_duration", "start", "stop", "steps", "step", "remeasure_invalid"}) {
    if (auto* n = s.Get(k)) return s.Error(*n, k, "does not apply to a batch subject's copies = [...]");
  }
  REAM_RETURN_IF_ERROR(s.OneOf("on_failure", &w->on_failure, {"continue", "stop"}));
  REAM_RETURN_IF_ERROR(s.Int("stop_after_invalid", &w->stop_after_invalid, 0, 1000));
  w->axis = LoadAxis::kCopies;
  w->remeasure_invalid = 0;
  const toml::array* a = list ? list->as_array() : nullptr;
  if (!a || a->empty()) return s.Error(*list, "copies", "must be a non-empty array of copy counts, e.g. [1, 2]");
  for (const auto& e : *a) {
    if (!e.is_integer() || e.value<int64_t>().value() < 1 || e.value<int64_t>().value() > 1024) {
      return s.Error(e, "copies", "must be whole numbers of copies in 1..1024");
    }
    w->qps.push_back(static_cast<double>(e.value<int64_t>().value()));
  }
  std::sort(w->qps.begin(), w->qps.end());
  if (std::adjacent_find(w->qps.begin(), w->qps.end()) != w->qps.end()) {
    return s.Error(*list, "copies", "repeats a value; each level is measured once per run (use repetitions)");
  }
  return Status::Ok();
}

Status ParseSweep(const TomlSection& s, SweepSpec* w) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  std::string mode = ToString(w->mode);
  REAM_RETURN_IF_ERROR(s.OneOf("mode", &mode, {"grid", "knee"}));
  w->mode = *SweepModeFromString(mode);
  // The sweep's independent variable: the open-loop rate, or concurrent streaming sessions.
  std::string axis(LoadAxisName(w->axis));
  REAM_RETURN_IF_ERROR(s.OneOf("axis", &axis, {"qps", "sessions", "copies"}));
  w->axis = *ParseLoadAxis(axis);
  if (s.Get("copies") || w->axis == LoadAxis::kCopies) {
    if (!s.Get("copies")) return s.Error(*s.Get("axis"), "axis", "is \"copies\": give copies = [1, 2, ...]");
    return ParseCopiesSweep(s, w);
  }
  if (w->axis == LoadAxis::kSessions) return ParseSessionSweep(s, w);
  if (auto* n = s.Get("sessions")) return s.Error(*n, "sessions", "applies to axis = \"sessions\" only");
  REAM_RETURN_IF_ERROR(s.OneOf("on_failure", &w->on_failure, {"continue", "stop"}));
  REAM_RETURN_IF_ERROR(s.Int("stop_after_invalid", &w->stop_after_invalid, 0, 1000));
  const std::string where = s.source() + ":" + std::to_string(s.table().source().begin.line) + ": [sweep] ";
  if (w->mode == SweepMode::kGrid) {
    for (const char* k : {"low", "high", "precision", "max_points", "confirm"}) {
      if (auto* n = s.Get(k)) return s.Error(*n, k, "applies to mode = \"knee\" only");
    }
    // A grid measures every level it lists; re-measuring an invalid one is asked for, not
    // assumed (past saturation every level is invalid, and each attempt costs a point).
    w->remeasure_invalid = 0;
    REAM_RETURN_IF_ERROR(s.Int("remeasure_invalid", &w->remeasure_invalid, 0, 1000));
    const toml::node* list = s.Get("qps");
    if (list && list->is_string()) {
      // The seed's procedure: probes find the range (experiment/load_range.h); `steps` levels.
      if (list->as_string()->get() != "auto") {
        return s.Error(*list, "qps", "must be an array of rates, or \"auto\" (probes find the range)");
      }
      for (const char* k : {"start", "stop", "step"}) {
        if (auto* n = s.Get(k)) return s.Error(*n, k, "does not go with qps = \"auto\" (the probes find the range)");
      }
      w->auto_range = true;
      int64_t steps = w->auto_levels;
      REAM_RETURN_IF_ERROR(s.Int("steps", &steps, 2, 1000));
      w->auto_levels = static_cast<int>(steps);
      REAM_RETURN_IF_ERROR(s.Number("probe_start", &w->probe_start_qps, 1e-3, 1e9));
      REAM_RETURN_IF_ERROR(s.Duration("probe_duration", &w->probe_duration, std::chrono::milliseconds(200),
                                      std::chrono::milliseconds(60000)));
      return Status::Ok();
    }
    for (const char* k : {"probe_start", "probe_duration"}) {
      if (auto* n = s.Get(k)) return s.Error(*n, k, "applies to qps = \"auto\" only");
    }
    bool range = s.Get("start") || s.Get("stop") || s.Get("steps") || s.Get("step");
    if (list && range) {
      return s.Error(*list, "qps", "and a range (start/stop/steps) are both given; use one");
    }
    if (list) {
      const toml::array* a = list->as_array();
      if (!a || a->empty()) return s.Error(*list, "qps", "must be a non-empty array of rates");
      for (const auto& e : *a) {
        REAM_ASSIGN_OR_RETURN(double v, NumberOf(s, e, "qps"));
        REAM_RETURN_IF_ERROR(CheckRate(s, e, "qps", v));
        w->qps.push_back(v);
      }
    } else if (range) {
      double start = 0, stop = 0, step = 0;
      int64_t steps = 0;
      for (const char* k : {"start", "stop"}) {
        auto* n = s.Get(k);
        if (!n) return InvalidArgument(where + "a range needs 'start' and 'stop' (and 'steps' or 'step')");
        REAM_ASSIGN_OR_RETURN(double v, NumberOf(s, *n, k));
        REAM_RETURN_IF_ERROR(CheckRate(s, *n, k, v));
        (std::string(k) == "start" ? start : stop) = v;
      }
      if (stop < start) return s.Error(*s.Get("stop"), "stop", "is below 'start'");
      if (s.Get("steps") && s.Get("step")) {
        return s.Error(*s.Get("step"), "step", "and 'steps' are both given; use one");
      }
      if (s.Get("steps")) {
        REAM_RETURN_IF_ERROR(s.Int("steps", &steps, 1, 10000));
        for (int64_t i = 0; i < steps; ++i) {
          w->qps.push_back(steps == 1 ? start : start + (stop - start) * static_cast<double>(i) / static_cast<double>(steps - 1));
        }
      } else if (s.Get("step")) {
        REAM_RETURN_IF_ERROR(s.Number("step", &step, 1e-9, 1e12));
        if ((stop - start) / step > 10000) return s.Error(*s.Get("step"), "step", "gives more than 10000 levels");
        for (double q = start; q <= stop * (1 + 1e-9); q += step) w->qps.push_back(q);
      } else {
        return InvalidArgument(where + "a range needs 'steps' (how many levels) or 'step' (QPS between levels)");
      }
    } else {
      return InvalidArgument(where + "mode = \"grid\" needs 'qps' (a list) or 'start', 'stop' and 'steps'");
    }
    std::vector<double> sorted = w->qps;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return InvalidArgument(where + "the load levels repeat a value; each level is measured once per run (use repetitions)");
    }
    w->qps = sorted;
  } else {
    for (const char* k : {"qps", "start", "stop", "steps", "step", "stop_after_invalid"}) {
      if (auto* n = s.Get(k)) return s.Error(*n, k, "applies to mode = \"grid\" only (knee uses low/high/precision)");
    }
    for (const char* k : {"low", "high"}) {
      auto* n = s.Get(k);
      if (!n) return InvalidArgument(where + "mode = \"knee\" needs 'low' and 'high' (the QPS range to search)");
      REAM_ASSIGN_OR_RETURN(double v, NumberOf(s, *n, k));
      REAM_RETURN_IF_ERROR(CheckRate(s, *n, k, v));
      (std::string(k) == "low" ? w->low : w->high) = v;
    }
    if (w->high <= w->low) return s.Error(*s.Get("high"), "high", "must be above 'low'");
    REAM_RETURN_IF_ERROR(s.Number("precision", &w->precision, 0.001, 0.5));
    REAM_RETURN_IF_ERROR(s.Int("max_points", &w->max_points, 3, 200));
    REAM_RETURN_IF_ERROR(s.Int("remeasure_invalid", &w->remeasure_invalid, 0, 1000));
    REAM_RETURN_IF_ERROR(s.Bool("confirm", &w->confirm));
  }
  return Status::Ok();
}

Status ParseQos(const TomlSection& s, QosSpec* q) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  REAM_RETURN_IF_ERROR(s.Number("percentile", &q->percentile, 1.0, 99.999));
  if (auto* n = s.Get("target")) {
    std::chrono::nanoseconds d{0};
    REAM_RETURN_IF_ERROR(s.Duration("target", &d, std::chrono::nanoseconds(1000),
                                    std::chrono::nanoseconds(int64_t{3600} * 1000000000)));
    (void)n;
    q->target_us = static_cast<double>(d.count()) / 1000.0;
  }
  REAM_RETURN_IF_ERROR(s.Number("service_multiplier", &q->service_multiplier, 1.0, 1000.0));
  REAM_RETURN_IF_ERROR(s.Number("at_utilization", &q->at_utilization, 0.01, 0.99));
  REAM_RETURN_IF_ERROR(s.Number("min_timely_ratio", &q->min_timely_ratio, 0.0, 1.0));
  REAM_RETURN_IF_ERROR(s.Number("max_rate_error", &q->max_rate_error, 0.0, 1.0));
  REAM_RETURN_IF_ERROR(s.OneOf("validity", &q->validity, {"distortion", "seed"}));
  REAM_RETURN_IF_ERROR(s.Number("max_distortion", &q->max_distortion, 0.0, 10.0));
  return Status::Ok();
}

// Parses one value of knob `k` (as written at `line`) into `p`: the text, its line and the
// typed value. InvalidArgument "x.toml:12: partitions.memory = \"lots\": ..." otherwise.
Status AddKnobValue(const TomlSection& s, const Knob& k, const std::string& text, int line,
                    PartitionValues* p) {
  auto v = k.parse(text, k.key);
  if (!v.ok()) {
    return InvalidArgument(s.source() + ":" + std::to_string(line) + ": partitions." + k.key + " = \"" + text +
                           "\": " + v.status().message());
  }
  p->knobs[k.key] = text;
  p->lines[k.key] = line;
  p->values[k.key] = {&k, *v};
  return Status::Ok();
}

// A knob's value as TOML gives it: a string, or an integer taken as its decimal text.
std::optional<std::string> KnobText(const toml::node& n) {
  if (n.is_string()) return n.value<std::string>().value();
  if (n.is_integer()) return std::to_string(n.value<int64_t>().value());
  return std::nullopt;
}

Status ParsePartitionValues(const TomlSection& s, const KnobTable& knobs, PartitionValues* p) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  for (const auto& k : knobs.knobs()) {
    if (!k.in_spec) continue;
    auto* n = s.Get(k.key);
    if (!n) continue;
    std::optional<std::string> text = KnobText(*n);
    if (!text) return s.Error(*n, k.key, "must be a string such as \"50%\" or \"512M\", or an integer");
    if (text->empty()) return s.Error(*n, k.key, "is empty");
    REAM_RETURN_IF_ERROR(AddKnobValue(s, k, *text, static_cast<int>(n->source().begin.line), p));
  }
  return Status::Ok();
}

Status ParsePartitions(const TomlSection& s, const KnobTable& knobs, std::vector<PartitionValues>* out) {
  const std::vector<std::string> keys = knobs.SpecKeys();
  out->clear();
  if (auto* sets = s.Get("set")) {
    const toml::array* a = sets->as_array();
    if (!a || !a->is_array_of_tables()) {
      return s.Error(*sets, "set", "must be an array of tables ([[partitions.set]])");
    }
    for (const auto& k : keys) {
      if (auto* n = s.Get(k)) {
        return s.Error(*n, k, "cannot be combined with [[partitions.set]]; put it in each set");
      }
    }
    for (const auto& e : *a) {
      TomlSection one(*e.as_table(), "partitions.set", s.source(), keys);
      PartitionValues p;
      REAM_RETURN_IF_ERROR(ParsePartitionValues(one, knobs, &p));
      out->push_back(std::move(p));
    }
  } else {
    // Lists expand to their product; a single value is a list of one. Each value is parsed
    // once, into a partition of its own, and the product merges them.
    std::vector<PartitionValues> acc(1);
    for (const auto& k : knobs.knobs()) {
      if (!k.in_spec) continue;
      auto* n = s.Get(k.key);
      if (!n) continue;
      std::vector<PartitionValues> values;
      auto add = [&](const toml::node& e) -> Status {
        std::optional<std::string> text = KnobText(e);
        if (!text) return s.Error(e, k.key, "values must be strings such as \"50%\" or \"512M\", or integers");
        if (text->empty()) return s.Error(e, k.key, "has an empty value");
        PartitionValues one;
        REAM_RETURN_IF_ERROR(AddKnobValue(s, k, *text, static_cast<int>(e.source().begin.line), &one));
        values.push_back(std::move(one));
        return Status::Ok();
      };
      if (const toml::array* a = n->as_array()) {
        if (a->empty()) return s.Error(*n, k.key, "is an empty list");
        for (const auto& e : *a) REAM_RETURN_IF_ERROR(add(e));
      } else {
        REAM_RETURN_IF_ERROR(add(*n));
      }
      std::vector<PartitionValues> next;
      for (const auto& base : acc) {
        for (const auto& v : values) {
          PartitionValues p = base;
          p.knobs[k.key] = v.knobs.at(k.key);
          p.lines[k.key] = v.lines.at(k.key);
          p.values[k.key] = v.values.at(k.key);
          next.push_back(std::move(p));
        }
      }
      acc = std::move(next);
      if (acc.size() > 10000) return s.Error(*n, k.key, "makes more than 10000 partitions");
    }
    *out = std::move(acc);
  }
  std::set<std::string> labels;
  for (const auto& p : *out) {
    if (!labels.insert(p.Label()).second) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.table().source().begin.line) +
                             ": [partitions] lists partition " + p.Label() + " twice");
    }
  }
  if (out->empty()) out->push_back({});
  return Status::Ok();
}

// One [sensitivity] table: the knob (a [partitions] key of `knobs`) and its values, each parsed
// by the knob's own parser. InvalidArgument naming the key, the value and its line otherwise.
Status ParseSensitivity(const TomlSection& s, const KnobTable& knobs, SensitivitySpec* out,
                        std::vector<PartitionValues>* values) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  out->line = static_cast<int>(s.table().source().begin.line);
  const std::string where = s.source() + ":" + std::to_string(out->line) + ": [sensitivity] ";
  const toml::node* kn = s.Get("knob");
  if (!kn) return InvalidArgument(where + "needs 'knob' (the [partitions] key to vary, e.g. \"net_overhead\")");
  REAM_RETURN_IF_ERROR(s.String("knob", &out->knob));
  const Knob* knob = knobs.Find(out->knob);
  if (!knob || !knob->in_spec) {
    std::string known;
    for (const auto& k : knobs.SpecKeys()) known += (known.empty() ? "" : ", ") + k;
    return s.Error(*kn, "knob", "is \"" + out->knob + "\": no such knob (the knobs: " + known + ")");
  }
  if (!knob->limits) {
    return s.Error(*kn, "knob", "is \"" + out->knob + "\": it qualifies other knobs and limits nothing, so "
                                "there is no sensitivity to it");
  }
  const toml::node* vn = s.Get("values");
  if (!vn) return InvalidArgument(where + "needs 'values' (the settings of " + out->knob + " to sweep)");
  const toml::array* a = vn->as_array();
  if (!a || a->empty()) return s.Error(*vn, "values", "must be a non-empty array of " + out->knob + " settings");
  std::set<std::string> seen;
  for (const auto& e : *a) {
    std::optional<std::string> text = KnobText(e);
    if (!text || text->empty()) {
      return s.Error(e, "values", "must be strings such as \"5us\" or \"50%\", or integers");
    }
    const int line = static_cast<int>(e.source().begin.line);
    auto v = knob->parse(*text, knob->key);
    if (!v.ok()) {
      return InvalidArgument(s.source() + ":" + std::to_string(line) + ": sensitivity.values = \"" + *text +
                             "\" (knob " + knob->key + "): " + v.status().message());
    }
    if (!seen.insert(*text).second) {
      return InvalidArgument(s.source() + ":" + std::to_string(line) + ": sensitivity.values lists \"" + *text +
                             "\" twice");
    }
    PartitionValues one;
    one.knobs[knob->key] = *text;
    one.lines[knob->key] = line;
    one.values[knob->key] = {knob, *v};
    values->push_back(std::move(one));
    out->values.push_back(*text);
  }
  return Status::Ok();
}

// The partitions of a sensitivity sweep: every base ([partitions]' partitions, or the
// unlimited default) with each table's knob at each of its values. A base that sets the swept
// knob itself is an error: the sweep, not the base, decides it.
Status ExpandSensitivity(const std::string& source, const std::vector<SensitivitySpec>& tables,
                         const std::vector<std::vector<PartitionValues>>& values,
                         std::vector<PartitionValues>* partitions) {
  std::vector<PartitionValues> out;
  for (size_t t = 0; t < tables.size(); ++t) {
    for (const auto& base : *partitions) {
      if (base.knobs.count(tables[t].knob)) {
        return InvalidArgument(source + ":" + std::to_string(base.lines.at(tables[t].knob)) + ": partitions." +
                               tables[t].knob + " is also the knob [sensitivity] (line " +
                               std::to_string(tables[t].line) + ") varies; leave it out of [partitions]");
      }
      for (const auto& v : values[t]) {
        PartitionValues p = base;
        const std::string& key = tables[t].knob;
        p.knobs[key] = v.knobs.at(key);
        p.lines[key] = v.lines.at(key);
        p.values[key] = v.values.at(key);
        out.push_back(std::move(p));
      }
    }
  }
  std::set<std::string> labels;
  for (const auto& p : out) {
    if (!labels.insert(p.Label()).second) {
      return InvalidArgument(source + ": [sensitivity] makes partition " + p.Label() +
                             " twice (two tables sweep the same knob over the same value)");
    }
  }
  if (out.size() > 10000) return InvalidArgument(source + ": [sensitivity] makes more than 10000 partitions");
  *partitions = std::move(out);
  return Status::Ok();
}

// The SCV (variance / mean²) of the work a builtin server's `--service` argument names, with
// where it came from; nullopt when the args name none or it does not parse (the server's own
// start then says why).
std::optional<double> ServiceScvFromArgs(const WorkloadSpec& w, std::string* source) {
  if (w.builtin.empty()) return std::nullopt;
  for (size_t i = 0; i < w.args.size(); ++i) {
    std::string text;
    if (w.args[i] == "--service" && i + 1 < w.args.size()) {
      text = w.args[i + 1];
    } else if (w.args[i].rfind("--service=", 0) == 0) {
      text = w.args[i].substr(10);
    } else {
      continue;
    }
    auto st = ServiceTime::Parse(text);
    if (!st.ok()) return std::nullopt;
    double mean = st->mean_ns();
    double scv = mean > 0 ? st->variance_ns2() / (mean * mean) : 0;
    char b[64];
    std::snprintf(b, sizeof b, "%.3g", scv);
    *source = "workload.args --service " + text + " (SCV " + b + ")";
    return scv;
  }
  return std::nullopt;
}

// The HOST of "ssh:HOST", or "" when `text` is not that or names a host that ssh would read as
// an option or a shell would split.
std::string SshHost(const std::string& text) {
  std::string host = text.rfind("ssh:", 0) == 0 ? text.substr(4) : "";
  if (host.empty() || host[0] == '-' || host.find_first_of(" \t'\"$;&|<>`\\") != std::string::npos) return "";
  return host;
}

Status ParseNodes(const TomlSection& s, const std::vector<PartitionValues>& partitions, bool workload_node,
                  NodesSpec* n) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  n->line = s.Line("clients");
  std::vector<int> lines;
  REAM_RETURN_IF_ERROR(s.StringList("clients", &n->clients, &lines));
  for (size_t i = 0; i < n->clients.size(); ++i) {
    const std::string& c = n->clients[i];
    if (std::find(n->clients.begin(), n->clients.begin() + static_cast<std::ptrdiff_t>(i), c) !=
        n->clients.begin() + static_cast<std::ptrdiff_t>(i)) {
      return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients lists '" + c + "' twice");
    }
    if (c.rfind("local:", 0) == 0) {
      std::string name = c.substr(6);
      bool ok = !name.empty() && name.size() <= 32;
      for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_');
      if (!ok) {
        return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients: '" + c +
                               "': a local node's NAME is 1-32 letters, digits, '-' or '_' (\"local:a\")");
      }
      n->local_nodes.push_back(name);
      continue;
    }
    const std::string host = SshHost(c);
    if (host.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(lines[i]) + ": nodes.clients: '" + c +
                             "' is not \"ssh:HOST\" (HOST as your ssh configuration knows it: \"ssh:client1\", "
                             "\"ssh:user@10.0.0.2\") or \"local:NAME\" (a namespace node ream creates here)");
    }
    n->client_hosts.push_back(host);
  }
  REAM_RETURN_IF_ERROR(s.String("workload_address", &n->workload_address));
  std::string workload;
  REAM_RETURN_IF_ERROR(s.String("workload", &workload));
  if (!workload.empty()) {
    const std::string at = s.source() + ":" + std::to_string(s.Line("workload")) + ": nodes.workload: ";
    const std::string host = SshHost(workload);
    if (host.empty()) {
      return InvalidArgument(at + "'" + workload +
                             "' is not \"ssh:HOST\" (the workload's host as your ssh configuration knows it, "
                             "reached as root: \"ssh:server1\", \"ssh:root@10.0.0.1\")");
    }
    n->workload_host = host;
    n->workload_line = s.Line("workload");
    if (n->workload_address.empty()) {
      return InvalidArgument(at + "nodes.workload_address is required with a workload on another host: the "
                             "address at which the load reaches it there");
    }
    if (!n->local_nodes.empty()) {
      return InvalidArgument(at + "local client nodes reach a workload on this host only; with the workload on " +
                             host + " drive the load from this host or from ssh client nodes");
    }
    // What the workload's host cannot be given yet: a node of its own there (only that host
    // could reach it), and the LogGP knobs, whose relay and statistics live on this host.
    for (const PartitionValues& p : partitions) {
      const PartitionSpec ps = p.ToPartitionSpec(workload_node);
      std::string why;
      if (ps.node) why = "puts the workload in a network namespace of its own, which only its host could reach";
      if (ps.NeedsRelay() || ps.net_overhead) {
        why = "sets a LogGP knob (net_latency, net_overhead, net_gap, net_per_byte), which ream applies on this "
              "host only so far";
      }
      if (!why.empty()) {
        return InvalidArgument(at + "partition " + p.Label() + " " + why + "; a workload on " + host +
                               " runs with the other knobs (docs/nodes.md)");
      }
    }
  }
  REAM_RETURN_IF_ERROR(s.String("ssh_config", &n->ssh_config));
  REAM_RETURN_IF_ERROR(s.StringList("ssh_options", &n->ssh_options));
  REAM_RETURN_IF_ERROR(s.OneOf("on_agent_loss", &n->on_agent_loss, {"fail", "continue"}));
  std::string cpus;
  REAM_RETURN_IF_ERROR(s.String("client_cpus", &cpus));
  if (!cpus.empty()) {
    auto list = ParseCpuList(cpus);
    if (!list.ok()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("client_cpus")) + ": nodes.client_cpus: " +
                             list.status().message());
    }
    n->client_cpus = *list;
  }
  std::string link_rate;
  REAM_RETURN_IF_ERROR(s.String("link_rate", &link_rate));
  if (!link_rate.empty()) {
    auto rate = ParseBitRate(link_rate);
    if (!rate.ok() || *rate <= 0) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("link_rate")) + ": nodes.link_rate: " +
                             (rate.ok() ? "'" + link_rate + "' must be above 0" : rate.status().message()));
    }
    if (n->local_nodes.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("link_rate")) +
                             ": nodes.link_rate shapes the links of local client nodes, and clients names none "
                             "(\"local:NAME\"); an ssh client's network is its own");
    }
    n->link_rate_bps = *rate;
  }
  if (!n->local_nodes.empty()) {
    // A local node reaches the host at its link's host end; a workload in a namespace of its
    // own would need the host to forward between the two namespaces, which ream does not turn on.
    std::string in_node = workload_node ? "node = true" : "";
    for (const PartitionValues& p : partitions) {
      for (const auto& [key, parsed] : p.values) {
        if (parsed.knob && parsed.knob->needs_node && in_node.empty()) in_node = "partition knob " + key;
      }
    }
    if (!in_node.empty()) {
      return InvalidArgument(s.source() + ":" + std::to_string(s.Line("clients")) +
                             ": local client nodes reach the workload on this host; " + in_node +
                             " puts the workload in a node of its own, and the host would have to forward "
                             "between the two namespaces (ream does not turn that on); shape the clients' links "
                             "with nodes.link_rate instead");
    }
  }
  if (!n->client_hosts.empty() && n->workload_address.empty()) {
    return InvalidArgument(s.source() + ":" + std::to_string(s.Line("clients")) +
                           ": nodes.workload_address is required with client nodes: the address at which they "
                           "reach the workload (this host's address on their network)");
  }
  return Status::Ok();
}

Status ParseModel(const TomlSection& s, ModelSpec* m) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  REAM_RETURN_IF_ERROR(s.Number("messages_per_op", &m->messages_per_op, 0.0, 1000.0));
  if (const toml::node* n = s.Get("range")) {
    const toml::array* a = n->as_array();
    if (!a || a->size() != 2 || !(*a)[0].is_number() || !(*a)[1].is_number()) {
      return s.Error(*n, "range", "must be [low, high], utilization fractions of the allotted CPUs ([0.1, 0.7])");
    }
    auto num = [](const toml::node& e) {
      return e.is_integer() ? static_cast<double>(e.value<int64_t>().value()) : e.value<double>().value();
    };
    double lo = num((*a)[0]), hi = num((*a)[1]);
    if (!(lo >= 0) || !(hi <= 1.5) || !(lo < hi)) {
      std::ostringstream msg;
      msg << "is [" << lo << ", " << hi << "]; it must be fractions with 0 <= low < high <= 1.5 ([0.1, 0.7] is "
          << "10 % to 70 % of the allotted CPUs)";
      return s.Error(*n, "range", msg.str());
    }
    m->range_low = lo;
    m->range_high = hi;
    m->range_given = true;
  }
  if (s.Get("service_scv")) {
    double scv = 0;
    REAM_RETURN_IF_ERROR(s.Number("service_scv", &scv, 0.0, 1e6));
    m->service_scv = scv;
    m->service_scv_source = "[model] service_scv";
  }
  return Status::Ok();
}

// The workload's protocol against the codec table, with the [load] options its codec takes:
// an unknown protocol, a malformed HTTP path, or a get/set mix the protocol cannot send is an
// error here, before any workload starts.
// The co-runner keys beside the knob table's.
const std::vector<std::string> kCorunnerKeys = {"name",  "command",       "batch",    "batch_seconds", "cpus",
                                                "sched", "restart",       "ready_line", "ready_timeout", "settle",
                                                "user",  "builtin",       "load",     "args",
                                                "pressure", "intensity"};

// A batch subject: its load is copies, its window [load] warmup and duration; the request
// keys of [load] and the server-only sections have nothing to act on, so they are refused.
Status CheckBatchSubject(const TomlSection& top, const ExperimentSpec& spec) {
  const std::string at = spec.source + ": [workload] batch = \"" + spec.workload.batch + "\": ";
  if (spec.sweep.axis != LoadAxis::kCopies) {
    return InvalidArgument(at + "a batch subject's load is its concurrent copies: give [sweep] copies = [1, 2] "
                                "(not qps or sessions levels)");
  }
  if (const toml::node* l = top.Get("load"); l && l->is_table()) {
    for (const auto& [key, node] : *l->as_table()) {
      if (key.str() != "warmup" && key.str() != "duration") {
        return InvalidArgument(at + "[load] " + std::string(key.str()) +
                               " sets request load levels, which a batch subject has none of; only [load] warmup "
                               "and duration (the point's window) apply");
      }
    }
  }
  for (const char* section : {"qos", "model", "nodes"}) {
    if (top.Get(section)) {
      return InvalidArgument(at + "[" + section + "] is for a server under request load; a batch subject is judged "
                                  "by its run time and throughput");
    }
  }
  if (spec.sandbox.kind != "process") {
    return InvalidArgument(at + "[sandbox] kind = \"" + spec.sandbox.kind + "\" cannot run batch copies yet");
  }
  return Status::Ok();
}

Status ParseCorunner(const TomlSection& s, const KnobTable& knobs, CorunnerSpec* c) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  c->line = static_cast<int>(s.table().source().begin.line);
  const std::string at = s.source() + ":" + std::to_string(c->line) + ": [[corunner]] ";
  REAM_RETURN_IF_ERROR(s.String("name", &c->name));
  if (c->name.empty() || c->name.find_first_of(" \t\n+/,") != std::string::npos || c->name == "alone") {
    return InvalidArgument(at + "needs a 'name' without spaces, '+', '/' or ',' (and not \"alone\"), which "
                                "names it in sets, messages and the results");
  }
  const std::string me = at.substr(0, at.size() - 1) + " '" + c->name + "': ";
  REAM_RETURN_IF_ERROR(s.StringList("command", &c->command));
  REAM_RETURN_IF_ERROR(s.String("batch", &c->batch));
  REAM_RETURN_IF_ERROR(s.Number("batch_seconds", &c->batch_seconds, 0.1, 3600));
  REAM_RETURN_IF_ERROR(s.String("pressure", &c->pressure));
  REAM_RETURN_IF_ERROR(s.String("builtin", &c->builtin));
  REAM_RETURN_IF_ERROR(s.StringList("args", &c->args));
  if (int given = !c->command.empty() + !c->batch.empty() + !c->pressure.empty() + !c->builtin.empty(); given != 1) {
    return InvalidArgument(me + "needs exactly one of 'command' (an argv array), 'batch' (a program of "
                                "`ream batch --list`), 'pressure' (a source of interference: " +
                           pressure::SourceNames() + ") and 'builtin' (one of ream's servers, with [corunner.load])");
  }
  if (s.Get("args") && c->builtin.empty()) return InvalidArgument(me + "'args' are a builtin's; give them in 'command'");
  if (!c->builtin.empty() && !BuiltinWorkloads().Find(c->builtin)) {
    return s.Error(*s.Get("builtin"), "builtin", "unknown builtin server (known: " + Join(BuiltinWorkloads().Names(), ", ") + ")");
  }
  if (const toml::node* l = s.Get("load")) {
    if (!l->is_table()) return s.Error(*l, "load", "must be a table ([corunner.load])");
    if (c->command.empty() && c->builtin.empty()) {
      return InvalidArgument(me + "[corunner.load] drives a server: give it 'builtin' or a 'command' that serves "
                                  "on \"{port}\" (a batch job or a pressure source generates its own work)");
    }
    TomlSection ls(*l->as_table(), "corunner.load", s.source(), {"qps", "connections", "protocol"});
    REAM_RETURN_IF_ERROR(ls.Unknown());
    CorunnerLoadSpec load;
    load.line = static_cast<int>(l->source().begin.line);
    if (!ls.Get("qps")) return InvalidArgument(me + "[corunner.load] needs 'qps' (requests per second)");
    REAM_RETURN_IF_ERROR(ls.Number("qps", &load.qps, 1, 1e8));
    REAM_RETURN_IF_ERROR(ls.Int("connections", &load.connections, 1, 10000));
    REAM_RETURN_IF_ERROR(ls.String("protocol", &load.protocol));
    if (!c->builtin.empty()) {
      const std::string& speaks = BuiltinWorkloads().Find(c->builtin)->protocol;
      if (load.protocol.empty()) load.protocol = speaks;
      if (load.protocol != speaks) {
        return InvalidArgument(me + "[corunner.load] protocol \"" + load.protocol + "\": builtin \"" + c->builtin +
                               "\" speaks \"" + speaks + "\"");
      }
    } else if (load.protocol.empty()) {
      return InvalidArgument(me + "[corunner.load] needs 'protocol' for a command (one of: " +
                             Join(ClientCodecNames(), ", ") + ")");
    }
    const auto names = ClientCodecNames();
    if (std::find(names.begin(), names.end(), load.protocol) == names.end()) {
      return InvalidArgument(me + "[corunner.load] protocol \"" + load.protocol + "\" is not one ream speaks (" +
                             Join(names, ", ") + ")");
    }
    bool has_port = false;
    for (const auto& a : c->command) has_port = has_port || a.find("{port}") != std::string::npos;
    if (!c->command.empty() && !has_port) {
      return InvalidArgument(me + "[corunner.load] needs the command to serve on \"{port}\" (ream fills in a free "
                                  "port and loads it there)");
    }
    c->load = load;
  } else if (!c->builtin.empty()) {
    // A builtin server as a neighbour is only useful under a load of its own: refused rather
    // than run idle.
    return InvalidArgument(me + "builtin = \"" + c->builtin + "\" needs [corunner.load] (qps = N): an idle "
                                "server is no neighbour");
  }
  if (!c->pressure.empty()) {
    if (auto source = pressure::ParseSource(c->pressure); !source.ok()) {
      return s.Error(*s.Get("pressure"), "pressure", source.status().message());
    }
    if (!s.Get("intensity")) return InvalidArgument(me + "pressure = \"" + c->pressure + "\" needs 'intensity' (0-100, %)");
    REAM_RETURN_IF_ERROR(s.Number("intensity", &c->intensity, 0, 100));
    if (!s.Get("ready_line")) c->ready_line = pressure::kReadyLine;
  } else if (s.Get("intensity")) {
    return InvalidArgument(me + "'intensity' is the dial of a 'pressure' source; this co-runner has none");
  }
  if (!s.Get("restart")) c->restart = !c->batch.empty();
  REAM_RETURN_IF_ERROR(s.Bool("restart", &c->restart));
  REAM_RETURN_IF_ERROR(s.String("cpus", &c->cpus));
  if (c->cpus != "subject" && c->cpus != "others") {
    auto list = ParseCpuList(c->cpus);
    if (!list.ok() || list->empty()) {
      return s.Error(*s.Get("cpus"), "cpus", "must be \"subject\", \"others\" or a CPU list such as \"0,2-3\"");
    }
  }
  std::string sched = ToString(c->sched);
  REAM_RETURN_IF_ERROR(s.OneOf("sched", &sched, {"normal", "batch", "idle"}));
  c->sched = *SchedClassFromString(sched);
  REAM_RETURN_IF_ERROR(s.String("ready_line", &c->ready_line));
  REAM_RETURN_IF_ERROR(s.Duration("ready_timeout", &c->ready_timeout, std::chrono::milliseconds(100),
                                  std::chrono::milliseconds(600000)));
  REAM_RETURN_IF_ERROR(s.Duration("settle", &c->settle, std::chrono::milliseconds(0),
                                  std::chrono::milliseconds(60000)));
  REAM_RETURN_IF_ERROR(s.String("user", &c->user));
  if (s.table().contains("user") && (c->user.empty() || c->user.find_first_of(" \t\n/:") != std::string::npos)) {
    return InvalidArgument(me + "user \"" + c->user + "\" is not an account name");
  }
  Status knob_error = ParsePartitionValues(s, knobs, &c->partition);
  if (!knob_error.ok()) return InvalidArgument("[[corunner]] '" + c->name + "': " + knob_error.message());
  return Status::Ok();
}

// [interference] sources × intensities as co-runners "SOURCE@P", each a set of its own (after
// the sets of the spec's own co-runners, which [colocation] or its default already chose).
Status ParseInterference(const TomlSection& top, ExperimentSpec* spec) {
  auto pct = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  Status err;
  const toml::table* t = top.Table("interference", &err);
  REAM_RETURN_IF_ERROR(err);
  if (!t) return Status::Ok();
  const std::string& source = top.source();
  TomlSection s(*t, "interference", source, {"sources", "intensities", "cpus", "sched", "load"});
  REAM_RETURN_IF_ERROR(s.Unknown());
  InterferenceSpec& in = spec->interference;
  in.line = static_cast<int>(t->source().begin.line);
  const std::string at = source + ":" + std::to_string(in.line) + ": [interference] ";
  if (!spec->workload.batch.empty()) {
    return InvalidArgument(at + "profiles a server under request load; a batch subject has no QoS to tolerate by");
  }
  if (spec->colocation.line && !spec->colocation.alone) {
    return InvalidArgument(at + "needs the subject measured alone (the 0 % of every curve): [colocation] alone = "
                                "false leaves it out");
  }
  std::vector<int> lines;
  REAM_RETURN_IF_ERROR(s.StringList("sources", &in.sources, &lines));
  if (in.sources.empty()) {
    return InvalidArgument(at + "needs 'sources', a non-empty list of " + pressure::SourceNames());
  }
  for (size_t i = 0; i < in.sources.size(); ++i) {
    if (auto src = pressure::ParseSource(in.sources[i]); !src.ok()) {
      return InvalidArgument(source + ":" + std::to_string(lines[i]) + ": [interference] sources: " +
                             src.status().message());
    }
    if (std::count(in.sources.begin(), in.sources.end(), in.sources[i]) > 1) {
      return InvalidArgument(at + "sources lists \"" + in.sources[i] + "\" twice");
    }
  }
  const toml::node* ints = s.Get("intensities");
  if (!ints) {
    in.intensities = {25, 50, 75, 100};
  } else {
    const toml::array* a = ints->as_array();
    if (!a || a->empty()) return s.Error(*ints, "intensities", "must be a non-empty array of percentages (0-100)");
    for (const auto& e : *a) {
      std::optional<double> v = e.value<double>();
      if (!v || *v < 0 || *v > 100) return s.Error(e, "intensities", "must hold percentages from 0 to 100");
      if (*v == 0) continue;  // the subject alone, measured anyway
      if (std::find(in.intensities.begin(), in.intensities.end(), *v) != in.intensities.end()) {
        return s.Error(e, "intensities", "lists " + pct(*v) + " twice");
      }
      in.intensities.push_back(*v);
    }
    if (in.intensities.empty()) return s.Error(*ints, "intensities", "needs an intensity above 0 (0 is the subject alone)");
    std::sort(in.intensities.begin(), in.intensities.end());
  }
  REAM_RETURN_IF_ERROR(s.String("cpus", &in.cpus));
  if (in.cpus != "subject" && in.cpus != "others") {
    auto list = ParseCpuList(in.cpus);
    if (!list.ok() || list->empty()) {
      return s.Error(*s.Get("cpus"), "cpus", "must be \"subject\", \"others\" or a CPU list such as \"0,2-3\"");
    }
  }
  std::string sched = ToString(in.sched);
  REAM_RETURN_IF_ERROR(s.OneOf("sched", &sched, {"normal", "batch", "idle"}));
  in.sched = *SchedClassFromString(sched);
  REAM_RETURN_IF_ERROR(s.Number("load", &in.load, 0, 1e9));
  for (const std::string& src : in.sources) {
    for (double p : in.intensities) {
      CorunnerSpec c;
      c.name = src + "@" + pct(p);
      if (spec->FindCorunner(c.name)) {
        return InvalidArgument(at + "its co-runner \"" + c.name + "\" has the name of a [[corunner]]; rename that one");
      }
      c.pressure = src;
      c.intensity = p;
      c.cpus = in.cpus;
      c.sched = in.sched;
      c.ready_line = pressure::kReadyLine;
      c.interference = true;
      c.interference_load = in.load;
      c.line = in.line;
      spec->corunners.push_back(c);
      spec->colocation.sets.push_back({c.name});
    }
  }
  return Status::Ok();
}

// A [[corunner]]'s variants: each a table with single values and its label "KEY=VALUE;...".
using Variants = std::vector<std::pair<toml::table, std::string>>;

// The product of `variants` with the values of `list` (the key `key`, `what` in messages): each
// variant's table with `set` applied to one value, which returns that value's text for the
// label, or nullopt when the value is not one of `kinds`.
Status Multiply(Variants* variants, const std::string& source, const std::string& what, const std::string& key,
                const toml::array& list,
                const std::function<std::optional<std::string>(toml::table&, const toml::node&)>& set,
                const std::string& kinds) {
  if (list.empty()) {
    return InvalidArgument(source + ":" + std::to_string(list.source().begin.line) + ": " + what + " is an empty list");
  }
  Variants next;
  for (const auto& [table, label] : *variants) {
    for (const auto& v : list) {
      toml::table one = table;
      std::optional<std::string> text = set(one, v);
      if (!text) {
        return InvalidArgument(source + ":" + std::to_string(v.source().begin.line) + ": " + what +
                               ": the values of a list must be " + kinds);
      }
      next.emplace_back(std::move(one), label + (label.empty() ? "" : ";") + key + "=" + *text);
    }
  }
  *variants = std::move(next);
  return Status::Ok();
}

Status ParseCorunners(const TomlSection& top, const KnobTable& knobs, ExperimentSpec* spec) {
  const std::string& source = top.source();
  // The [[corunner]] tables' names in order (a varied one once, by its base name).
  std::vector<std::string> bases;
  if (const toml::node* n = top.Get("corunner")) {
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables()) {
      return top.Error(*n, "corunner", "must be tables ([[corunner]]), one per co-runner");
    }
    std::vector<std::string> keys = kCorunnerKeys;
    for (const auto& k : knobs.SpecKeys()) keys.push_back(k);
    // The keys whose value may be a list: the co-runner's knobs and its scheduling class.
    std::vector<std::string> variable = knobs.SpecKeys();
    variable.push_back("sched");
    std::set<std::string> names;
    for (const auto& e : *a) {
      const toml::table& t = *e.as_table();
      // A knob (or sched) given as a list makes one co-runner per value (the product over such
      // keys), each named NAME@KEY=VALUE[;KEY=VALUE...]: "which partition protects the subject"
      // is then one experiment, each variant a set of its own where [colocation] names NAME.
      Variants variants = {{t, ""}};
      for (const std::string& key : variable) {
        const toml::node* n = t.get(key);
        if (!n || !n->is_array()) continue;
        REAM_RETURN_IF_ERROR(Multiply(&variants, source, "[[corunner]] " + key, key, *n->as_array(),
                                      [&](toml::table& one, const toml::node& v) -> std::optional<std::string> {
                                        std::optional<std::string> text = KnobText(v);
                                        if (!text) return std::nullopt;
                                        if (v.is_integer()) one.insert_or_assign(key, *v.value<int64_t>());
                                        else one.insert_or_assign(key, *text);
                                        return text;
                                      },
                                      "strings such as \"50%\", or integers"));
      }
      // [corunner.load] qps as a list: the neighbour at each rate, PARTIES' question of how much
      // load it carries while both keep their QoS.
      if (const toml::table* load = t.get_as<toml::table>("load"); load && load->get_as<toml::array>("qps")) {
        REAM_RETURN_IF_ERROR(Multiply(&variants, source, "[corunner.load] qps", "qps", *load->get_as<toml::array>("qps"),
                                      [&](toml::table& one, const toml::node& v) -> std::optional<std::string> {
                                        if (!v.is_integer() && !v.is_floating_point()) return std::nullopt;
                                        toml::table l = *load;
                                        l.insert_or_assign("qps", *v.value<double>());
                                        one.insert_or_assign("load", std::move(l));
                                        return Fmt("%g", *v.value<double>());
                                      },
                                      "numbers"));
      }
      bases.push_back(t.get_as<std::string>("name") ? t.get_as<std::string>("name")->get() : std::string());
      for (const auto& [table, label] : variants) {
        CorunnerSpec c;
        REAM_RETURN_IF_ERROR(ParseCorunner(TomlSection(table, "corunner", source, keys), knobs, &c));
        c.line = static_cast<int>(t.source().begin.line);
        if (!label.empty()) {
          spec->corunner_variants[c.name].push_back(c.name + "@" + label);
          c.name += "@" + label;
        }
        if (!names.insert(c.name).second) {
          return InvalidArgument(source + ":" + std::to_string(c.line) + ": [[corunner]] name \"" + c.name +
                                 "\" is used twice");
        }
        spec->corunners.push_back(std::move(c));
      }
    }
  }
  // A set's names, each varied co-runner replaced by its variants: one set per combination.
  auto expand = [&](const std::vector<std::string>& set) {
    std::vector<std::vector<std::string>> out(1);
    for (const std::string& name : set) {
      auto it = spec->corunner_variants.find(name);
      std::vector<std::string> alts = it == spec->corunner_variants.end() ? std::vector<std::string>{name} : it->second;
      std::vector<std::vector<std::string>> next;
      for (const auto& base : out) {
        for (const auto& alt : alts) {
          next.push_back(base);
          next.back().push_back(alt);
        }
      }
      out = std::move(next);
    }
    return out;
  };
  Status err;
  if (const toml::table* t = top.Table("colocation", &err)) {
    TomlSection s(*t, "colocation", source, {"alone", "sets"});
    REAM_RETURN_IF_ERROR(s.Unknown());
    spec->colocation.line = static_cast<int>(t->source().begin.line);
    if (spec->corunners.empty()) {
      return InvalidArgument(source + ":" + std::to_string(spec->colocation.line) +
                             ": [colocation] needs at least one [[corunner]]");
    }
    REAM_RETURN_IF_ERROR(s.Bool("alone", &spec->colocation.alone));
    if (const toml::node* sets = s.Get("sets")) {
      const toml::array* a = sets->as_array();
      if (!a || a->empty()) return s.Error(*sets, "sets", "must be a non-empty array of arrays of co-runner names");
      std::set<std::string> labels;
      for (const auto& e : *a) {
        const toml::array* names = e.as_array();
        if (!names || names->empty()) {
          return s.Error(e, "sets", "must hold arrays of co-runner names, such as [[\"cache\"], [\"cache\", \"stream\"]]");
        }
        std::vector<std::string> set;
        for (const auto& n : *names) {
          auto name = n.value<std::string>();
          if (!name) return s.Error(n, "sets", "must hold co-runner names (strings)");
          if (!spec->FindCorunner(*name) && !spec->corunner_variants.count(*name)) {
            std::string known;
            for (const auto& c : spec->corunners) known += (known.empty() ? "" : ", ") + c.name;
            return s.Error(n, "sets", "names \"" + *name + "\", which is no [[corunner]] (there are: " + known + ")");
          }
          if (std::find(set.begin(), set.end(), *name) != set.end()) {
            return s.Error(n, "sets", "lists \"" + *name + "\" twice in one set");
          }
          set.push_back(*name);
        }
        for (auto& one : expand(set)) {
          spec->colocation.sets.push_back(std::move(one));
          if (!labels.insert(spec->colocation.Label(spec->colocation.sets.size() - 1)).second) {
            return s.Error(e, "sets", "lists the set " + spec->colocation.Label(spec->colocation.sets.size() - 1) +
                                           " twice");
          }
        }
      }
    }
  }
  REAM_RETURN_IF_ERROR(err);
  if (!spec->corunners.empty() && spec->colocation.sets.empty()) {
    // Every co-runner together; a varied one by its base name, so that each of its variants
    // makes a set of its own.
    spec->colocation.sets = expand(bases);
  }
  REAM_RETURN_IF_ERROR(ParseInterference(top, spec));
  if (!spec->corunners.empty() && (spec->nodes.remote() || !spec->nodes.workload_host.empty() ||
                                   spec->sandbox.kind != "process")) {
    return InvalidArgument(source + ": [[corunner]] runs beside a subject in a process sandbox on this host, "
                                    "driven by the local generator; with [nodes] or [sandbox] kind = \"" +
                           spec->sandbox.kind + "\" it is not supported yet");
  }
  if (!spec->corunners.empty() && spec->sweep.axis == LoadAxis::kSessions) {
    return InvalidArgument(source + ": [[corunner]] with [sweep] axis = \"sessions\" is not supported yet");
  }
  // A co-runner under a load of its own is driven by a second generator on the generator's CPUs,
  // which yields on every turn of its spin; the subject's generator then waits the same way
  // unless [load] wait says otherwise. Spinning before each send (wait = "sleep"), it lost the CPU
  // to the other generator often enough here that every shared point at 20 000 QPS was invalid by
  // lateness; both yielding, every one was valid (6 Dec 2026).
  bool loaded = false;
  for (const auto& c : spec->corunners) loaded = loaded || c.load.has_value();
  if (loaded) {
    Status none;
    const toml::table* l = top.Table("load", &none);
    if (!l || !l->contains("wait")) spec->load.wait = "yield";
  }
  return Status::Ok();
}

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
  co.value_bytes = static_cast<size_t>(spec.load.value_bytes);
  co.http_path = spec.load.http_path;
  co.http_method = spec.load.http_method;
  auto codec = MakeClientCodec(w.protocol, co);
  if (!codec.ok()) return InvalidArgument(at + "workload.protocol / [load]: " + codec.status().message());
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

Result<ExperimentSpec> ParseSpec(const std::string& text, const std::string& source, const KnobTable& knobs) {
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
               "sensitivity", "model", "sandbox", "nodes", "corunner", "colocation", "interference"});
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
  if (const toml::table* l = top.Table("load", &err)) {
    REAM_RETURN_IF_ERROR(ParseLoad(TomlSection(*l, "load", source,
                                           {"arrival", "key_dist", "keys", "get_ratio", "value_bytes",
                                            "connections", "threads", "warmup", "duration",
                                            "timely_tolerance", "response_timeout", "http_path",
                                            "http_method", "wait", "response_timing", "keep_awake", "session_chunks",
                                            "chunk_bytes", "bitrate", "attempts"}),
                                   &spec.load));
  }
  REAM_RETURN_IF_ERROR(err);
  const toml::table* sw = top.Table("sweep", &err);
  REAM_RETURN_IF_ERROR(err);
  if (!sw) return InvalidArgument(source + ": [sweep] is required (qps = [...], a range, or mode = \"knee\")");
  REAM_RETURN_IF_ERROR(ParseSweep(TomlSection(*sw, "sweep", source,
                                          {"mode", "axis", "qps", "sessions", "copies", "probe_start", "probe_duration", "start", "stop", "steps", "step", "low", "high",
                                           "precision", "max_points", "confirm", "remeasure_invalid",
                                           "stop_after_invalid", "on_failure"}),
                                  &spec.sweep));
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
  REAM_RETURN_IF_ERROR(ParseCorunners(top, knobs, &spec));
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
               {"value_bytes", load.value_bytes}, {"connections", load.connections},
               {"threads", load.threads},     {"warmup_ms", ms(load.warmup)},
               {"duration_ms", ms(load.duration)},
               {"timely_tolerance_us", std::chrono::duration<double, std::micro>(load.timely_tolerance).count()},
               {"response_timeout_ms", ms(load.response_timeout)},
               {"http_path", load.http_path},  {"http_method", load.http_method},
               {"wait", load.wait},
               {"keep_awake", KeepAwakeJson(load.keep_awake)},
               {"response_timing", load.response_timing},
               {"attempts", load.attempts}};
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
      if (!c.batch.empty()) {
        e["batch"] = c.batch;
        e["batch_seconds"] = c.batch_seconds;
      }
      if (!c.pressure.empty()) {
        e["pressure"] = c.pressure;
        e["intensity"] = c.intensity;
      }
      if (c.interference) e["interference_load"] = c.interference_load;
      if (!c.user.empty()) e["user"] = c.user;
      cs.push_back(e);
    }
    j["corunners"] = cs;
    json sets = json::array();
    for (size_t i = 0; i < colocation.sets.size(); ++i) sets.push_back(colocation.sets[i]);
    j["colocation"] = {{"alone", colocation.alone}, {"sets", sets}};
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
