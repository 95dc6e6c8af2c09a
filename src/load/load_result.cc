// The generator's result for people (Summary) and for the store and tools (ToJson).
#include <cmath>
#include <cstdio>
#include <string>

#include "load/generator.h"
#include "platform/text.h"
#include "platform/net.h"

namespace ream {
namespace {

// Percentiles in µs; null (not zeros) when nothing was recorded, so an unmeasured figure is
// never mistaken for a measured 0.
nlohmann::json Stats(const Histogram& h, bool full) {
  if (h.count() == 0) return nullptr;
  auto us = [](double ns) { return std::round(ns / 10.0) / 100.0; };  // µs, 2 decimals
  nlohmann::json j;
  if (full) {
    j["mean"] = us(h.mean());
    j["stddev"] = us(h.stddev());
  }
  j["p50"] = us(static_cast<double>(h.ValueAtQuantile(0.50)));
  if (full) j["p95"] = us(static_cast<double>(h.ValueAtQuantile(0.95)));
  j["p99"] = us(static_cast<double>(h.ValueAtQuantile(0.99)));
  if (full) j["p999"] = us(static_cast<double>(h.ValueAtQuantile(0.999)));
  j["max"] = us(static_cast<double>(h.max()));
  if (full) j["count"] = h.count();
  return j;
}

// Sizes in bytes (or keys): null when nothing was recorded.
nlohmann::json SizeStats(const Histogram& h) {
  if (h.count() == 0) return nullptr;
  auto at = [&h](double q) { return h.ValueAtQuantile(q); };
  // total: the sum of the values (bytes, or keys of the batches), exact from the running sum.
  return {{"count", h.count()}, {"total", std::llround(h.mean() * static_cast<double>(h.count()))},
          {"mean", std::round(h.mean() * 100) / 100}, {"min", h.min()}, {"p50", at(0.5)},
          {"p95", at(0.95)}, {"p99", at(0.99)}, {"max", h.max()}};
}

// A distribution as written: a fixed one as its number, the others as their text.
nlohmann::json DistributionJson(const Distribution& d) {
  if (!d.fixed()) return d.name;
  if (d.a == std::floor(d.a) && std::abs(d.a) < 9e15) return static_cast<int64_t>(d.a);
  return d.a;
}

std::string FormatUs(double ns) {
  char b[32];
  if (ns >= 1e6) {
    std::snprintf(b, sizeof b, "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(b, sizeof b, "%.1f us", ns / 1e3);
  }
  return b;
}

}  // namespace

std::optional<uint64_t> JsonCount(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

nlohmann::json LoadResult::ToJson() const {
  const LoadOptions& o = options;
  nlohmann::json j;
  j["target"] = net::JoinHostPort(o.host, o.port);
  j["protocol"] = protocol;
  j["target_qps"] = o.qps;
  j["achieved_qps"] = achieved_qps;
  j["throughput_qps"] = throughput_qps;
  j["issued"] = issued;
  j["completed"] = completed;
  j["errors"] = errors;
  j["error_reasons"] = error_reasons;
  j["connection_failures"] = connection_failures;
  j["issued_total"] = issued_total;
  j["completed_total"] = completed_total;
  j["unanswered_total"] = unanswered_total;
  j["late_answers_discarded"] = late_answers;
  j["reconnections"] = reconnections;
  j["reconnect_reasons"] = reconnect_reasons;
  j["reconnect_attempts_failed"] = reconnect_failures;
  j["server_closes_after"] = server_closes_after ? nlohmann::json(server_closes_after) : nlohmann::json(nullptr);
  j["timely_ratio"] = timely_ratio;
  j["timely_tolerance_us"] = static_cast<double>(o.timely_tolerance_ns) / 1e3;
  j["valid"] = valid;
  j["validity_rule"] = ValidityRuleName(o.validity);
  j["validity_rule_text"] = validity_rule;
  if (distortion.applicable) {
    j["distortion"] = {{"percentile", distortion.percentile},
                       {"from_schedule_us", std::round(distortion.from_schedule_ns / 10.0) / 100.0},
                       {"from_send_us", std::round(distortion.from_send_ns / 10.0) / 100.0},
                       {"lateness_share", distortion.share},
                       {"max_share", o.max_distortion}};
  } else {
    j["distortion"] = nullptr;
  }
  j["invalid_reasons"] = invalid_reasons;
  j["warnings"] = warnings;
  j["rate_error_limit"] = rate_error_limit;
  j["cancelled"] = cancelled;
  j["response_timing"] = response_timing;
  j["lateness_us"] = Stats(lateness, false);
  // Why the late requests were late: the shares add up to 1 − timely_ratio.
  j["lateness_causes"] = late_causes.ToJson(issued, window_begin_ns);
  j["latency_us"] = Stats(latency, true);
  j["latency_from_send_us"] = Stats(latency_from_send, true);
  // Each key's latency (its multiget's): null, with the reason, when every get carried one key.
  if (latency_per_key.count() > 0) {
    j["latency_per_key_us"] = Stats(latency_per_key, true);
  } else {
    j["latency_per_key_us"] = nullptr;
    j["latency_per_key_unavailable"] =
        o.multiget.fixed() && o.multiget.a == 1 ? "every get carried one key: a key's latency is its request's (latency_us)"
                                                 : "no multiget was answered in the window";
  }
  // The kernel's send stamp of each request to its arrival stamp of the answer: the round trip
  // on the wire, without the generator's own write and wake-up. Null when either side's kernel
  // stamps were not had (send_timing, response_timing say why).
  j["wire_rtt_us"] = Stats(wire, true);
  j["send_timing"] = send_timing;
  if (has_server_times) {
    j["service_us"] = Stats(service, true);
    j["queue_us"] = Stats(queue, true);
  } else {
    // Absent, not null or zero: these figures were not measured (DESIGN: never print an
    // unmeasured metric as a number). The reason says why.
    j["server_times_unavailable"] =
        server_times_supported ? "no response carried server times (nothing completed in the window)"
                               : "protocol '" + protocol + "' does not report server service time";
  }
  nlohmann::json ad;
  if (interarrival.applicable) {
    ad["statistic"] = interarrival.statistic;
    ad["critical"] = interarrival.critical;
    ad["passed"] = interarrival.passed;
    ad["sample_size"] = interarrival.sample_size;
    ad["span"] = interarrival.span;
    ad["method"] = interarrival.method;
  } else {
    ad["statistic"] = nullptr;
    ad["critical"] = nullptr;
    ad["passed"] = nullptr;
    ad["not_applicable"] = interarrival.not_applicable_reason;
  }
  j["interarrival_test"] = ad;
  j["generator_cpu_s"] = generator_cpu_s;
  j["generator_cpu_us_per_request"] =
      issued ? nlohmann::json(generator_cpu_s * 1e6 / static_cast<double>(issued)) : nlohmann::json(nullptr);
  j["duration_s"] = static_cast<double>(o.duration_ns) / 1e9;
  // Measured until known (load/until.h): the rule, how long it took and which check decided.
  if (until) {
    j["until"] = {{"rule", o.until ? o.until->Text() : ""},
                  {"measured_s", until->measured_s},
                  {"known", until->known},
                  {"check", until->check},
                  {"decided_by", until->reason},
                  {"interval", until->interval ? nlohmann::json(*until->interval) : nlohmann::json(nullptr)},
                  {"interval_samples", until->interval_samples},
                  {"effective_samples", until->effective_samples},
                  {"batches", until->batches},
                  {"batch_s", until->batch_s},
                  {"lag1_r", until->lag1_r},
                  {"windows", until->windows}};
  } else {
    j["until"] = nullptr;
  }
  // The rate over time (load/schedule.h) as written, and the windows reported as they ended.
  j["schedule"] = o.schedule ? nlohmann::json(o.schedule->text) : nlohmann::json(nullptr);
  j["window_s"] = o.window_ns > 0 ? nlohmann::json(static_cast<double>(o.window_ns) / 1e9) : nlohmann::json(nullptr);
  j["windows"] = nlohmann::json::array();
  for (const LoadWindow& w : windows) j["windows"].push_back(w.ToJson());
  j["warmup_s"] = static_cast<double>(o.warmup_ns) / 1e9;
  j["connections"] = o.connections;
  j["threads"] = o.threads;
  j["generator_cpus"] = o.cpus.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.cpus);
  j["wait"] = WaitName(o.wait);
  j["wait_why"] = wait_why;  // "asked", or what --wait auto chose and why
  // The host's limit at this rate (load/send_floor.h): null when not asked for.
  j["send_floor"] = o.send_floor == LoadOptions::SendFloorMode::kOff ? nlohmann::json(nullptr) : send_floor.ToJson();
  // Waking on time: the margin spun before each send (sleeping threads), calibrated before the
  // schedule and re-learned every 64 timed waits; null when the threads never sleep (or, in a
  // session load, spin a fixed margin).
  if (o.wait == Wait::kSpin || wake_margin_final_ns < 0) {
    j["wake_margin_us"] = nullptr;
  } else {
    auto us = [](int64_t ns) { return ns < 0 ? nlohmann::json(nullptr) : nlohmann::json(static_cast<double>(ns) / 1e3); };
    j["wake_margin_us"] = {{"calibrated", us(wake_margin_calibrated_ns)},
                           {"calibration_waits", wake_calibration_waits},
                           {"final", us(wake_margin_final_ns)},
                           {"rule", "the latest of the thread's last 256 timed waits' wake-ups, + 5 us"}};
  }
  j["arrival"] = o.arrival.name;
  j["key_dist"] = o.key_dist.name;
  j["keys"] = o.keys;
  j["get_ratio"] = o.get_ratio;
  j["value_bytes"] = o.value_sizes.fixed() ? nlohmann::json(o.codec.value_bytes) : nlohmann::json(o.value_sizes.name);
  j["key_bytes"] = DistributionJson(o.key_sizes);
  j["multiget"] = DistributionJson(o.multiget);
  j["preset"] = o.preset.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.preset);
  // What the measured requests carried: the sizes drawn (null where every request carried the
  // fixed size), the draws held to the bounds, the bytes each way.
  {
    const double window_s = static_cast<double>(o.duration_ns) / 1e9;
    j["sent"] = {{"key_bytes", SizeStats(sizes.key_bytes)},
                 {"value_bytes", SizeStats(sizes.value_bytes)},
                 {"multiget_keys", SizeStats(sizes.multiget_keys)},
                 {"clamped", {{"key_bytes", sizes.key_clamped},
                              {"value_bytes", sizes.value_clamped},
                              {"multiget_keys", sizes.multiget_clamped}}},
                 {"request_bytes", sizes.request_bytes},
                 {"response_bytes", sizes.response_bytes},
                 {"request_bytes_per_s", window_s > 0 ? static_cast<double>(sizes.request_bytes) / window_s : 0.0},
                 {"response_bytes_per_s", window_s > 0 ? static_cast<double>(sizes.response_bytes) / window_s : 0.0}};
  }
  j["seed"] = o.seed;
  // Each histogram in full, for the results store (Histogram::Decode reads it back).
  j["histograms"] = {{"latency_ns", latency.Encode()},
                     {"latency_from_send_ns", latency_from_send.Encode()},
                     {"service_ns", service.Encode()},
                     {"queue_ns", queue.Encode()},
                     {"lateness_ns", lateness.Encode()}};
  if (latency_per_key.count() > 0) j["histograms"]["latency_per_key_ns"] = latency_per_key.Encode();
  if (sizes.key_bytes.count() > 0) j["histograms"]["key_bytes"] = sizes.key_bytes.Encode();
  if (sizes.value_bytes.count() > 0) j["histograms"]["value_bytes"] = sizes.value_bytes.Encode();
  if (sizes.multiget_keys.count() > 0) j["histograms"]["multiget_keys"] = sizes.multiget_keys.Encode();
  if (o.session.enabled()) {
    // Session load (load/session_load.h): its figures, and the chunk's response + transfer
    // time and its response time alone as histograms of their own kinds.
    const SessionFigures& f = session;
    j["load_axis"] = "sessions";
    j["arrival"] = "sessions";  // each session's absolute chunk schedule, not an arrival process
    j["connections"] = o.session.sessions;
    j["timely_tolerance_us"] = f.timely_tolerance_us;
    j["sessions"] = {{"sessions", o.session.sessions},
                     {"session_chunks", o.session.session_chunks},
                     {"chunk_bytes", o.session.chunk_bytes},
                     {"bitrate_bps", o.session.bitrate_bps},
                     {"chunk_play_ms", f.chunk_play_ms},
                     {"deadline_rule", "a chunk is on time when its last byte arrives by its scheduled request "
                                       "instant + its play time (chunk_bytes * 8 / bitrate)"},
                     {"timely_tolerance_us", f.timely_tolerance_us},
                     {"sessions_started", f.sessions_started},
                     {"chunks_scheduled", f.chunks_scheduled},
                     {"chunks_requested", f.chunks_requested},
                     {"chunks_completed", f.chunks_completed},
                     {"chunks_on_time", f.chunks_on_time},
                     {"deadline_misses", f.deadline_misses},
                     {"deadline_miss_ratio", f.chunks_requested ? nlohmann::json(f.deadline_miss_ratio) : nlohmann::json(nullptr)},
                     {"bytes_received", f.bytes_received},
                     {"throughput_bytes_per_s", f.throughput_bytes_per_s},
                     {"offered_bytes_per_s", o.session.OfferedBitsPerSecond() / 8},
                     {"chunk_us", Stats(latency, true)},
                     {"first_byte_us", Stats(f.first_byte, true)}};
    j["histograms"]["chunk_ns"] = latency.Encode();
    j["histograms"]["first_byte_ns"] = f.first_byte.Encode();
  }
  return j;
}

std::string LoadResult::Summary() const {
  const LoadOptions& o = options;
  std::string s;
  char b[512];
  if (o.session.enabled()) {
    std::snprintf(b, sizeof b, "target %s (%s), session load, videos %s over %llu, 1 thread, %d connection(s)\n",
                  net::JoinHostPort(o.host, o.port).c_str(), protocol.c_str(), o.key_dist.name.c_str(),
                  static_cast<unsigned long long>(o.keys), o.session.sessions);
  } else {
    std::snprintf(b, sizeof b, "target %s (%s), %s arrivals, keys %s over %llu, %d thread(s), %d connection(s)\n",
                  net::JoinHostPort(o.host, o.port).c_str(), protocol.c_str(), o.arrival.name.c_str(),
                  o.key_dist.name.c_str(), static_cast<unsigned long long>(o.keys), o.threads, o.connections);
  }
  s += b;
  if (o.session.enabled()) {
    const SessionFigures& f = session;
    std::snprintf(b, sizeof b,
                  "sessions:  %d concurrent, %llu chunks of %llu B each at %.3g Mbit/s (a chunk plays %.1f ms); %llu "
                  "session(s) started in the window\n",
                  o.session.sessions, static_cast<unsigned long long>(o.session.session_chunks),
                  static_cast<unsigned long long>(o.session.chunk_bytes),
                  static_cast<double>(o.session.bitrate_bps) / 1e6, f.chunk_play_ms,
                  static_cast<unsigned long long>(f.sessions_started));
    s += b;
    std::snprintf(b, sizeof b,
                  "chunks:    %llu due, %llu requested, %llu completed, %llu on time: deadline misses %.2f %%; "
                  "throughput %.2f MB/s (offered %.2f MB/s)\n",
                  static_cast<unsigned long long>(f.chunks_scheduled), static_cast<unsigned long long>(f.chunks_requested),
                  static_cast<unsigned long long>(f.chunks_completed), static_cast<unsigned long long>(f.chunks_on_time),
                  100 * f.deadline_miss_ratio, f.throughput_bytes_per_s / 1e6, o.session.OfferedBitsPerSecond() / 8e6);
    s += b;
  }
  std::snprintf(b, sizeof b, "rate:      target %.1f QPS, achieved %.1f QPS, throughput %.1f QPS over %.1f s (+%.1f s warm-up)\n",
                o.qps, achieved_qps, throughput_qps, static_cast<double>(o.duration_ns) / 1e9,
                static_cast<double>(o.warmup_ns) / 1e9);
  s += b;
  if (o.schedule) s += "schedule:  " + o.schedule->text + " (the target is its mean)\n";
  if (!windows.empty()) {
    size_t valid_windows = 0;
    for (const LoadWindow& w : windows) valid_windows += w.valid ? 1 : 0;
    s += "windows:   " + std::to_string(windows.size()) + " of " + Fmt("%g", static_cast<double>(o.window_ns) / 1e9) +
         " s, " + std::to_string(valid_windows) + " valid\n";
  }
  if (until) {
    s += "until:     " + (o.until ? o.until->Text() : std::string()) + ": " + (until->known ? "known" : "stopped") +
         " after " + Fmt("%.2f", until->measured_s) + " s, decided by " + until->check + ": " + until->reason + "\n";
  }
  std::snprintf(b, sizeof b, "requests:  %llu issued, %llu completed, %llu errors\n",
                static_cast<unsigned long long>(issued), static_cast<unsigned long long>(completed),
                static_cast<unsigned long long>(errors));
  s += b;
  if (issued == 0) {
    s += "timely:    unavailable (no request was sent in the measured window)\n";
  } else {
  std::snprintf(b, sizeof b, "timely:    %.2f %% within %.0f us; lateness p50 %s, p99 %s, max %s\n",
                100 * timely_ratio,
                o.session.enabled() ? session.timely_tolerance_us : static_cast<double>(o.timely_tolerance_ns) / 1e3,
                FormatUs(static_cast<double>(lateness.ValueAtQuantile(0.5))).c_str(),
                FormatUs(static_cast<double>(lateness.ValueAtQuantile(0.99))).c_str(),
                FormatUs(static_cast<double>(lateness.max())).c_str());
  s += b;
  if (late_causes.late() > 0) {
    std::snprintf(b, sizeof b, "late:      %.2f %% of requests: ",
                  100.0 * static_cast<double>(late_causes.late()) / static_cast<double>(issued));
    s += b + late_causes.Shares(issued);
    if (!late_causes.worst.empty()) {
      const LateOffender& w = late_causes.worst.front();
      std::snprintf(b, sizeof b, "; longest: %s, %s at %.3f s (%llu late)", w.What().c_str(),
                    FormatUs(static_cast<double>(w.duration_ns)).c_str(),
                    static_cast<double>(w.begin_ns - window_begin_ns) / 1e9,
                    static_cast<unsigned long long>(w.late_requests));
      s += b;
    }
    s += "\n";
  }
  }
  auto line = [&](const char* name, const Histogram& h) {
    if (h.count() == 0) {
      std::snprintf(b, sizeof b, "%-10s unavailable (nothing was recorded)\n", name);
      s += b;
      return;
    }
    std::snprintf(b, sizeof b, "%-10s mean %s, p50 %s, p95 %s, p99 %s, p99.9 %s, max %s\n", name,
                  FormatUs(h.mean()).c_str(), FormatUs(static_cast<double>(h.ValueAtQuantile(0.5))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.95))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.99))).c_str(),
                  FormatUs(static_cast<double>(h.ValueAtQuantile(0.999))).c_str(),
                  FormatUs(static_cast<double>(h.max())).c_str());
    s += b;
  };
  line(o.session.enabled() ? "chunk:" : "latency:", latency);
  if (o.session.enabled()) line("1st byte:", session.first_byte);
  line("from send:", latency_from_send);
  if (latency_per_key.count() > 0) line("per key:", latency_per_key);
  if (sizes.key_bytes.count() + sizes.value_bytes.count() + sizes.multiget_keys.count() > 0) {
    auto size = [](const char* what, const Histogram& h, const std::string& asked) {
      if (h.count() == 0) return std::string();
      char t[200];
      std::snprintf(t, sizeof t, "%s %s: mean %.1f, p50 %lld, p99 %lld, max %lld; ", what, asked.c_str(), h.mean(),
                    static_cast<long long>(h.ValueAtQuantile(0.5)), static_cast<long long>(h.ValueAtQuantile(0.99)),
                    static_cast<long long>(h.max()));
      return std::string(t);
    };
    std::string t = size("keys (B)", sizes.key_bytes, o.key_sizes.name) +
                    size("values (B)", sizes.value_bytes, o.value_sizes.fixed() ? std::to_string(o.codec.value_bytes) : o.value_sizes.name) +
                    size("keys per get", sizes.multiget_keys, o.multiget.name);
    std::snprintf(b, sizeof b, "%.0f B/s sent, %.0f B/s received\n",
                  static_cast<double>(sizes.request_bytes) * 1e9 / static_cast<double>(o.duration_ns),
                  static_cast<double>(sizes.response_bytes) * 1e9 / static_cast<double>(o.duration_ns));
    s += "sizes:     " + t + b;
  }
  if (wire.count() > 0) {
    line("wire rtt:", wire);
  } else {
    s += "wire rtt:  unavailable (needs the kernel's send and arrival stamps, --response-timing packet; sends timed by " + send_timing + ")\n";
  }
  if (has_server_times) {
    line("service:", service);
    line("queue:", queue);
  } else {
    s += "service:   unavailable (protocol '" + protocol + "' does not report server times)\n";
  }
  if (interarrival.applicable) {
    std::snprintf(b, sizeof b, "arrivals:  %s: A2 = %.3f, critical %.3f, n = %zu: %s\n", interarrival.method.c_str(),
                  interarrival.statistic, interarrival.critical, interarrival.sample_size,
                  interarrival.passed ? "passed" : "FAILED");
  } else {
    std::snprintf(b, sizeof b, "arrivals:  not tested (%s)\n", interarrival.not_applicable_reason.c_str());
  }
  s += b;
  const char* spinning = o.wait == Wait::kYield ? "spinning (yielding the CPU each turn)" : "spinning";
  std::string waits = o.wait == Wait::kSpin ? "spinning" : std::string("sleeping, then ") + spinning;
  if (o.wait != Wait::kSpin && wake_margin_final_ns >= 0) {
    char m[200];
    if (wake_margin_calibrated_ns >= 0) {
      std::snprintf(m, sizeof m, "sleeping, then %s the last %.0f us; %.0f us as calibrated by %d timed waits at start",
                    spinning, static_cast<double>(wake_margin_final_ns) / 1e3,
                    static_cast<double>(wake_margin_calibrated_ns) / 1e3, wake_calibration_waits);
    } else {
      std::snprintf(m, sizeof m, "sleeping, then %s the last %.0f us; not calibrated at start (time for %d timed waits)",
                    spinning, static_cast<double>(wake_margin_final_ns) / 1e3, wake_calibration_waits);
    }
    waits = m;
  }
  std::snprintf(b, sizeof b, "generator: %.3f CPU s, %.2f CPU us per request (waits by %s)\n",
                generator_cpu_s, issued ? generator_cpu_s * 1e6 / static_cast<double>(issued) : 0.0, waits.c_str());
  s += b;
  if (wait_why != "asked") s += "           waits chosen by --wait " + wait_why + "\n";
  if (!o.cpus.empty()) {
    s += "           threads pinned: ";
    for (int t = 0; t < o.threads; ++t) {
      s += (t ? ", " : "") + std::to_string(t) + " on CPU " + std::to_string(o.cpus[static_cast<size_t>(t) % o.cpus.size()]);
    }
    s += "\n";
  }
  s += "timing:    responses timed by " + response_timing + "; sends by " + send_timing + "\n";
  if (reconnections == 0 && reconnect_reasons.empty()) {
    s += "reconnect: none (no connection was closed by the server)\n";
  } else {
    std::snprintf(b, sizeof b, "reconnect: %llu reconnection(s), %llu failed attempt(s), %llu request(s) unanswered when their connection closed or timed out;",
                  static_cast<unsigned long long>(reconnections), static_cast<unsigned long long>(reconnect_failures),
                  static_cast<unsigned long long>(unanswered_total));
    s += b;
    for (const auto& [reason, n] : reconnect_reasons) s += " " + std::to_string(n) + " × " + reason + ";";
    if (server_closes_after > 0) {
      s += " the server closes a connection after " + std::to_string(server_closes_after) +
           " responses, so no more were written on one;";
    }
    s.back() = '\n';
  }
  if (late_answers > 0) {
    std::snprintf(b, sizeof b, "late:      %llu answer(s) came after their request had been given up (overtaken by newer ones on its connection): discarded\n",
                  static_cast<unsigned long long>(late_answers));
    s += b;
  }
  if (distortion.applicable) {
    std::snprintf(b, sizeof b, "lateness:  moved p%g by %.1f %% (%s from the schedule, %s from the send)\n",
                  distortion.percentile, 100 * distortion.share, FormatUs(distortion.from_schedule_ns).c_str(),
                  FormatUs(distortion.from_send_ns).c_str());
    s += b;
  }
  if (o.send_floor != LoadOptions::SendFloorMode::kOff) {
    if (send_floor.available && issued > 0) {
      const double late = 1 - timely_ratio, floor_late = send_floor.late_share();
      char ratio[64] = "";
      if (floor_late > 0) std::snprintf(ratio, sizeof ratio, "; late share %.2fx the bare sender's", late / floor_late);
      std::snprintf(b, sizeof b, "host:      a bare sender here: %s; this run %.2f %% timely (%+.2f points%s)\n",
                    send_floor.Describe().c_str(), 100 * timely_ratio, 100 * (floor_late - late), ratio);
      s += b;
    } else {
      s += "host:      the bare sender's figure is " + send_floor.Describe() + "\n";
    }
  }
  if (valid) {
    s += "valid:     yes, by rule " + validity_rule + "\n";
  } else {
    s += "valid:     NO, by rule " + validity_rule + "\n";
    for (const auto& reason : invalid_reasons) s += "  - " + reason + "\n";
  }
  for (const auto& w : warnings) s += "warning:   " + w + "\n";
  return s;
}


}  // namespace ream
