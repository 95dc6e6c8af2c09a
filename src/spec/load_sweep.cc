// The spec's [load], [sweep], [qos] and [model] sections, over spec/toml_section.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>

#include <toml++/toml.h>

#include "load/generator.h"
#include "load/presets.h"
#include "load/session_schedule.h"
#include "spec/sections.h"
#include "spec/spec.h"
#include "spec/toml_section.h"
#include "workloads/service_time.h"

namespace ream {

namespace {

// A distribution's text as a spec key takes it: not `file:` or `trace:`, which name a file that
// `ream load` reads (the spec stays one self-contained text).
Status RefuseFileForms(const TomlSection& s, const toml::node& n, const std::string& key, const std::string& text) {
  if (text.rfind("file:", 0) == 0 || text.rfind("trace:", 0) == 0) {
    return s.Error(n, key, "is \"" + text + "\"; a table or trace in a file is `ream load`'s flag only, not a spec key");
  }
  return Status::Ok();
}

// A size key: a whole number in [lo, hi], or a distribution's text (load/distribution.h).
Status SizeKey(const TomlSection& s, const std::string& key, int64_t lo, int64_t hi, Distribution* out) {
  const toml::node* n = s.Get(key);
  if (n == nullptr) return Status::Ok();
  if (n->is_integer()) {
    REAM_RETURN_IF_ERROR(s.Int(key, &lo, lo, hi));  // range-checked into lo, which is then the value
    *out = FixedDistribution(static_cast<double>(lo));
    return Status::Ok();
  }
  if (!n->is_string()) return s.Error(*n, key, "must be a whole number or a distribution (\"fb_value\", \"gev:L,S,K\")");
  const std::string text = n->value<std::string>().value();
  REAM_RETURN_IF_ERROR(RefuseFileForms(s, *n, key, text));
  auto d = ParseDistribution(text, "load." + key);
  if (!d.ok()) return s.Error(*n, key, d.status().message());
  if (d->fixed() && !(d->a >= static_cast<double>(lo) && d->a <= static_cast<double>(hi) && d->a == std::floor(d->a))) {
    return s.Error(*n, key, "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  *out = *std::move(d);
  return Status::Ok();
}

}  // namespace

Status ParseLoad(const TomlSection& s, LoadSpec* l) {
  REAM_RETURN_IF_ERROR(s.Unknown());
  // A preset first: the keys given beside it override its values.
  REAM_RETURN_IF_ERROR(s.String("preset", &l->preset));
  if (const toml::node* n = s.Get("preset")) {
    auto preset = FindLoadPreset(l->preset);
    if (!preset.ok()) return s.Error(*n, "preset", preset.status().message());
    l->arrival = preset->arrival;
    l->get_ratio = preset->get_ratio;
    auto k = ParseDistribution(preset->key_bytes, "preset");
    auto v = ParseDistribution(preset->value_bytes, "preset");
    if (!k.ok() || !v.ok()) return s.Error(*n, "preset", "its sizes do not parse (a bug in the preset table)");
    l->key_sizes = *k;
    l->value_sizes = *v;
  }
  REAM_RETURN_IF_ERROR(s.String("arrival", &l->arrival));
  if (const toml::node* n = s.Get("arrival")) REAM_RETURN_IF_ERROR(RefuseFileForms(s, *n, "arrival", l->arrival));
  if (auto arrival = ParseArrival(l->arrival); arrival.ok()) {
    l->arrival_spec = *arrival;
  } else {
    const toml::node* n = s.Get("arrival") ? s.Get("arrival") : s.Get("preset");
    return s.Error(*n, "arrival", arrival.status().message());
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
  REAM_RETURN_IF_ERROR(SizeKey(s, "value_bytes", 0, 16 << 20, &l->value_sizes));
  REAM_RETURN_IF_ERROR(
      SizeKey(s, "key_bytes", static_cast<int64_t>(MinKeyBytes(static_cast<uint64_t>(l->keys))),
              static_cast<int64_t>(kMaxSentKeyBytes), &l->key_sizes));
  REAM_RETURN_IF_ERROR(SizeKey(s, "multiget", 1, static_cast<int64_t>(kMaxMultigetKeys), &l->multiget));
  // "auto": the fewest that keep the top level timely (search/load_range.h: ClientChoices).
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
  if (const toml::node* n = s.Get("until")) {
    if (!n->is_string()) return s.Error(*n, "until", "must be a string such as \"p95 ±5%\" or \"p99 ±2% max 20s\"");
    auto rule = ParseUntil(n->value<std::string>().value(), "[load] until");
    if (!rule.ok()) return s.Error(*n, "until", rule.status().message());
    l->until = *rule;
  }
  if (const toml::node* n = s.Get("schedule")) {
    if (!n->is_string()) {
      return s.Error(*n, "schedule", "must be a string such as \"10000 for 20s, 40000 for 20s, 10000 to 5000 over 10s\"");
    }
    const std::string text = n->value<std::string>().value();
    REAM_RETURN_IF_ERROR(RefuseFileForms(s, *n, "schedule", text));
    if (s.Get("duration")) {
      return s.Error(*s.Get("duration"), "duration", "is given beside schedule: the schedule's length is the window");
    }
    auto schedule = ParseSchedule(text, "[load] schedule", nullptr);
    if (!schedule.ok()) return s.Error(*n, "schedule", schedule.status().message());
    l->schedule = *schedule;
    l->duration = std::chrono::ceil<std::chrono::milliseconds>(std::chrono::nanoseconds(schedule->duration_ns()));
  }
  REAM_RETURN_IF_ERROR(s.Duration("window", &l->window, std::chrono::milliseconds(10),
                                  std::chrono::milliseconds(3600000)));
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

namespace {

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

}  // namespace

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
      // The seed's procedure: probes find the range (search/load_range.h); `steps` levels.
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

}  // namespace ream
