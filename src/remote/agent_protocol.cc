// The agent protocol's documents and the lossless merge of the agents' results
// (remote/agent_protocol.h).
#include "remote/agent_protocol.h"
#include "platform/text.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <type_traits>

#include "load/histogram.h"
#include "load/lateness.h"
#include "platform/platform.h"

namespace ream::agent {
namespace {

using nlohmann::json;

template <typename T>
Status Take(const json& j, const char* key, T* out) {
  if (!j.contains(key)) return Status::Ok();  // the default stands
  // An integer field given as a fraction (2e98) would be converted with undefined behaviour.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (j.at(key).is_number_float()) return InvalidArgument(std::string("agent run options: '") + key + "' is not an integer");
  }
  try {
    *out = j.at(key).get<T>();
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("agent run options: '") + key + "' has the wrong type: " + e.what());
  }
  return Status::Ok();
}

// A count as an agent writes it (JsonCount); anything else counts as 0.
uint64_t Count(const json& v) { return JsonCount(v).value_or(0); }
uint64_t U(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() ? Count(*it) : 0;
}
double D(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
std::string S(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Status AddHistogram(const json& encoded, const std::string& agent, const char* what, Histogram* into) {
  if (!encoded.is_string()) return Status::Ok();
  auto h = Histogram::Decode(encoded.get<std::string>());
  if (!h.ok()) return Corrupt("agent " + agent + ": histogram " + what + ": " + h.status().message());
  into->Merge(*h);
  return Status::Ok();
}

}  // namespace

std::string MessageType(const json& m) {
  return m.is_object() && m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
}
uint64_t MessageId(const json& m) { return m.is_object() && m.contains("id") ? Count(m["id"]) : 0; }

namespace {

json DistributionToJson(const Distribution& d) {
  if (d.kind != Distribution::Kind::kTable) return d.name;
  // A table read from a file here: its values and probabilities, not the path.
  json values = json::array();
  double prev = 0;
  for (size_t i = 0; i < d.values.size(); ++i) values.push_back({d.values[i], d.cumulative[i] - prev}), prev = d.cumulative[i];
  return {{"name", d.name}, {"table", values}};
}

Status DistributionFromJson(const json& j, const char* key, Distribution* out) {
  if (!j.contains(key)) return Status::Ok();
  const json& v = j[key];
  std::string text;
  if (v.is_string()) {
    auto d = ParseDistribution(v.get<std::string>(), std::string("agent run options: ") + key);
    if (!d.ok()) return d.status();
    *out = *std::move(d);
    return Status::Ok();
  }
  if (!v.is_object() || !v.contains("table") || !v["table"].is_array() || !v.contains("name") || !v["name"].is_string()) {
    return InvalidArgument(std::string("agent run options: '") + key + "' is neither a distribution's text nor a table");
  }
  for (const json& e : v["table"]) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number() || !e[1].is_number()) {
      return InvalidArgument(std::string("agent run options: '") + key + "' holds a table entry that is not [value, weight]");
    }
    text += Fmt("%.17g", e[0].get<double>()) + " " + Fmt("%.17g", e[1].get<double>()) + "\n";
  }
  auto d = ParseDistribution(v["name"].get<std::string>(), std::string("agent run options: ") + key, text);
  if (!d.ok()) return d.status();
  *out = *std::move(d);
  return Status::Ok();
}

}  // namespace

json LoadOptionsToJson(const LoadOptions& o) {
  return {{"host", o.host},
          {"port", o.port},
          {"protocol", o.protocol},
          {"value_bytes", o.codec.value_bytes},
          {"http_path", o.codec.http_path},
          {"http_method", o.codec.http_method},
          {"http_host", o.codec.http_host},
          {"qps", o.qps},
          {"duration_ns", o.duration_ns},
          {"warmup_ns", o.warmup_ns},
          {"arrival", o.arrival.name},
          {"trace_gaps", o.arrival.trace_gaps},
          {"keys", o.keys},
          {"key_dist", o.key_dist.name},
          {"get_ratio", o.get_ratio},
          {"connections", o.connections},
          {"threads", o.threads},
          {"keep_awake", o.keep_awake},
          {"cpus", o.cpus},
          {"timely_tolerance_ns", o.timely_tolerance_ns},
          {"min_timely_ratio", o.min_timely_ratio},
          {"max_rate_error", o.max_rate_error},
          {"validity", ValidityRuleName(o.validity)},
          {"validity_percentile", o.validity_percentile},
          {"max_distortion", o.max_distortion},
          {"seed", o.seed},
          {"connect_timeout_ns", o.connect_timeout_ns},
          {"response_timeout_ns", o.response_timeout_ns},
          {"interarrival_sample", o.interarrival_sample},
          {"kernel_rx_timestamps", o.kernel_rx_timestamps},
          {"segment_rx_timestamps", o.segment_rx_timestamps},
          {"wait", WaitName(o.wait)},
          {"start_at_ns", o.start_at_ns},
          // Drawn sizes as their text (a file: table as its values, as a trace travels).
          {"key_sizes", DistributionToJson(o.key_sizes)},
          {"value_sizes", DistributionToJson(o.value_sizes)},
          {"multiget", DistributionToJson(o.multiget)},
          {"preset", o.preset}};
}

Result<LoadOptions> LoadOptionsFromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("agent run options: not a JSON object");
  LoadOptions o;
  std::string arrival = o.arrival.name, key_dist = o.key_dist.name, validity = ValidityRuleName(o.validity);
  std::vector<double> gaps;
  REAM_RETURN_IF_ERROR(Take(j, "host", &o.host));
  REAM_RETURN_IF_ERROR(Take(j, "port", &o.port));
  REAM_RETURN_IF_ERROR(Take(j, "protocol", &o.protocol));
  REAM_RETURN_IF_ERROR(Take(j, "value_bytes", &o.codec.value_bytes));
  REAM_RETURN_IF_ERROR(Take(j, "http_path", &o.codec.http_path));
  REAM_RETURN_IF_ERROR(Take(j, "http_method", &o.codec.http_method));
  REAM_RETURN_IF_ERROR(Take(j, "http_host", &o.codec.http_host));
  REAM_RETURN_IF_ERROR(Take(j, "qps", &o.qps));
  REAM_RETURN_IF_ERROR(Take(j, "duration_ns", &o.duration_ns));
  REAM_RETURN_IF_ERROR(Take(j, "warmup_ns", &o.warmup_ns));
  REAM_RETURN_IF_ERROR(Take(j, "arrival", &arrival));
  REAM_RETURN_IF_ERROR(Take(j, "trace_gaps", &gaps));
  REAM_RETURN_IF_ERROR(Take(j, "keys", &o.keys));
  REAM_RETURN_IF_ERROR(Take(j, "key_dist", &key_dist));
  REAM_RETURN_IF_ERROR(Take(j, "get_ratio", &o.get_ratio));
  REAM_RETURN_IF_ERROR(Take(j, "connections", &o.connections));
  REAM_RETURN_IF_ERROR(Take(j, "threads", &o.threads));
  REAM_RETURN_IF_ERROR(Take(j, "keep_awake", &o.keep_awake));
  REAM_RETURN_IF_ERROR(Take(j, "cpus", &o.cpus));
  REAM_RETURN_IF_ERROR(Take(j, "timely_tolerance_ns", &o.timely_tolerance_ns));
  REAM_RETURN_IF_ERROR(Take(j, "min_timely_ratio", &o.min_timely_ratio));
  REAM_RETURN_IF_ERROR(Take(j, "max_rate_error", &o.max_rate_error));
  REAM_RETURN_IF_ERROR(Take(j, "validity", &validity));
  REAM_RETURN_IF_ERROR(Take(j, "validity_percentile", &o.validity_percentile));
  REAM_RETURN_IF_ERROR(Take(j, "max_distortion", &o.max_distortion));
  REAM_RETURN_IF_ERROR(Take(j, "seed", &o.seed));
  REAM_RETURN_IF_ERROR(Take(j, "connect_timeout_ns", &o.connect_timeout_ns));
  REAM_RETURN_IF_ERROR(Take(j, "response_timeout_ns", &o.response_timeout_ns));
  REAM_RETURN_IF_ERROR(Take(j, "interarrival_sample", &o.interarrival_sample));
  REAM_RETURN_IF_ERROR(Take(j, "kernel_rx_timestamps", &o.kernel_rx_timestamps));
  REAM_RETURN_IF_ERROR(Take(j, "segment_rx_timestamps", &o.segment_rx_timestamps));
  std::string wait = WaitName(o.wait);
  REAM_RETURN_IF_ERROR(Take(j, "wait", &wait));
  auto w = ParseWait(wait);
  if (!w) return InvalidArgument("agent run options: 'wait' is '" + wait + "', not auto, sleep, spin or yield");
  o.wait = *w;
  REAM_RETURN_IF_ERROR(Take(j, "start_at_ns", &o.start_at_ns));
  REAM_RETURN_IF_ERROR(DistributionFromJson(j, "key_sizes", &o.key_sizes));
  REAM_RETURN_IF_ERROR(DistributionFromJson(j, "value_sizes", &o.value_sizes));
  REAM_RETURN_IF_ERROR(DistributionFromJson(j, "multiget", &o.multiget));
  REAM_RETURN_IF_ERROR(Take(j, "preset", &o.preset));
  if (arrival.rfind("trace:", 0) == 0) {
    o.arrival.kind = ArrivalSpec::Kind::kTrace;
    o.arrival.name = arrival;
    o.arrival.trace_gaps = std::move(gaps);
  } else {
    auto a = ParseArrival(arrival);
    if (!a.ok()) return InvalidArgument("agent run options: " + a.status().message());
    o.arrival = *a;
  }
  auto k = ParseKeyDist(key_dist);
  if (!k.ok()) return InvalidArgument("agent run options: " + k.status().message());
  o.key_dist = *k;
  if (validity != "seed" && validity != "distortion") {
    return InvalidArgument("agent run options: validity '" + validity + "' is neither seed nor distortion");
  }
  o.validity = validity == "seed" ? ValidityRule::kSeed : ValidityRule::kDistortion;
  if (Status valid = ValidateLoadOptions(o); !valid.ok()) return InvalidArgument("agent run options: " + valid.message());
  return o;
}

json ClockEstimate::ToJson() const {
  return {{"offset_ns", offset_ns}, {"rtt_ns", rtt_ns}, {"samples", samples}};
}

ClockEstimate BestClock(const std::vector<ClockSample>& samples) {
  ClockEstimate e;
  e.samples = static_cast<int>(samples.size());
  int64_t best = INT64_MAX;
  for (const ClockSample& s : samples) {
    int64_t rtt = s.received_ns - s.sent_ns;
    if (rtt < 0 || rtt >= best) continue;
    best = rtt;
    e.rtt_ns = rtt;
    // The agent read its clock somewhere in the round trip; its midpoint is the best guess.
    e.offset_ns = s.agent_ns - (s.sent_ns + rtt / 2);
  }
  return e;
}

LoadOptions AgentShare(const LoadOptions& total, int index, int count, const std::string& workload_host,
                       int64_t agent_start_at_ns) {
  LoadOptions o = total;
  o.qps = total.qps / count;
  // The connections split as evenly as they go, each agent keeping at least one per thread.
  int conns = total.connections / count + (index < total.connections % count ? 1 : 0);
  o.connections = std::max(conns, o.threads);
  // A seed of its own: the agents' schedules and keys are independent draws, not copies.
  o.seed = total.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(index + 1) * 0xBF58476D1CE4E5B9ULL;
  if (!workload_host.empty()) o.host = workload_host;
  o.cpus.clear();  // the coordinator's CPU numbers mean nothing on another host
  o.keep_awake = false;
  o.cancel_fd = -1;
  o.start_at_ns = agent_start_at_ns;
  return o;
}

json ResultMessage(uint64_t id, const LoadResult& r) {
  json m;
  m["type"] = "result";
  m["id"] = id;
  m["generator"] = r.ToJson();
  // What ToJson leaves out but the merge needs exactly.
  m["timely"] = r.timely;
  m["wire_ns"] = r.wire.Encode();
  m["window_begin_ns"] = r.window_begin_ns;
  m["has_server_times"] = r.has_server_times;
  m["server_times_supported"] = r.server_times_supported;
  return m;
}

Result<json> MergeAgentResults(const LoadOptions& total, const std::vector<AgentOutcome>& agents) {
  LoadResult m;
  m.options = total;
  m.protocol = total.protocol;
  std::vector<std::string> lost;
  json per_agent = json::array();
  std::string worst_ad_agent;
  double worst_ad_ratio = -1;
  int agents_with_results = 0;
  std::string response_timing, send_timing;
  for (const AgentOutcome& a : agents) {
    json pa;
    pa["name"] = a.name;
    pa["target_qps"] = a.target_qps;
    pa["seed"] = a.seed;
    pa["clock"] = a.clock.ToJson();
    if (!a.failure.empty()) {
      lost.push_back("agent " + a.name + ": " + a.failure);
      pa["failure"] = a.failure;
    }
    if (a.result) {
      const json& r = *a.result;
      if (!r.contains("generator") || !r["generator"].is_object()) {
        return Corrupt("agent " + a.name + ": its result carries no generator document");
      }
      const json& g = r["generator"];
      ++agents_with_results;
      m.issued += U(g, "issued");
      m.completed += U(g, "completed");
      m.errors += U(g, "errors");
      m.timely += U(r, "timely");
      m.issued_total += U(g, "issued_total");
      m.completed_total += U(g, "completed_total");
      m.unanswered_total += U(g, "unanswered_total");
      m.late_answers += U(g, "late_answers_discarded");
      m.reconnections += U(g, "reconnections");
      m.reconnect_failures += U(g, "reconnect_attempts_failed");
      m.generator_cpu_s += D(g, "generator_cpu_s");
      m.cancelled = m.cancelled || (g.contains("cancelled") && g["cancelled"].is_boolean() && g["cancelled"].get<bool>());
      m.has_server_times = m.has_server_times || (r.contains("has_server_times") && r["has_server_times"].is_boolean() && r["has_server_times"].get<bool>());
      m.server_times_supported =
          m.server_times_supported || (r.contains("server_times_supported") && r["server_times_supported"].is_boolean() && r["server_times_supported"].get<bool>());
      if (g.contains("server_closes_after") && g["server_closes_after"].is_number_unsigned()) {
        m.server_closes_after = g["server_closes_after"].get<uint64_t>();
      }
      if (g.contains("error_reasons") && g["error_reasons"].is_object()) {
        for (const auto& [k, v] : g["error_reasons"].items()) m.error_reasons[k] += Count(v);
      }
      if (g.contains("reconnect_reasons") && g["reconnect_reasons"].is_object()) {
        for (const auto& [k, v] : g["reconnect_reasons"].items()) m.reconnect_reasons[k] += Count(v);
      }
      if (g.contains("connection_failures") && g["connection_failures"].is_array()) {
        for (const auto& f : g["connection_failures"]) if (f.is_string()) m.connection_failures.push_back(a.name + ": " + f.get<std::string>());
      }
      const json hs = g.contains("histograms") && g["histograms"].is_object() ? g["histograms"] : json::object();
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("latency_ns", json()), a.name, "latency", &m.latency));
      REAM_RETURN_IF_ERROR(
          AddHistogram(hs.value("latency_from_send_ns", json()), a.name, "latency from send", &m.latency_from_send));
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("service_ns", json()), a.name, "service", &m.service));
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("queue_ns", json()), a.name, "queue", &m.queue));
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("lateness_ns", json()), a.name, "lateness", &m.lateness));
      REAM_RETURN_IF_ERROR(AddHistogram(r.value("wire_ns", json()), a.name, "wire", &m.wire));
      // What the requests carried (drawn sizes, multigets), merged like the latencies.
      REAM_RETURN_IF_ERROR(
          AddHistogram(hs.value("latency_per_key_ns", json()), a.name, "latency per key", &m.latency_per_key));
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("key_bytes", json()), a.name, "key sizes", &m.sizes.key_bytes));
      REAM_RETURN_IF_ERROR(AddHistogram(hs.value("value_bytes", json()), a.name, "value sizes", &m.sizes.value_bytes));
      REAM_RETURN_IF_ERROR(
          AddHistogram(hs.value("multiget_keys", json()), a.name, "multiget batches", &m.sizes.multiget_keys));
      if (g.contains("sent") && g["sent"].is_object()) {
        const json& sent = g["sent"];
        m.sizes.request_bytes += U(sent, "request_bytes");
        m.sizes.response_bytes += U(sent, "response_bytes");
        if (sent.contains("clamped") && sent["clamped"].is_object()) {
          m.sizes.key_clamped += U(sent["clamped"], "key_bytes");
          m.sizes.value_clamped += U(sent["clamped"], "value_bytes");
          m.sizes.multiget_clamped += U(sent["clamped"], "multiget_keys");
        }
      }
      if (g.contains("lateness_causes") && g["lateness_causes"].is_object()) {
        const json& lc = g["lateness_causes"];
        const double threshold_ns = D(lc, "threshold_us") * 1e3;  // converted only when it fits
        if (threshold_ns >= 0 && threshold_ns < 9e18) m.late_causes.threshold_ns = static_cast<int64_t>(threshold_ns);
        if (lc.contains("causes") && lc["causes"].is_object()) {
          for (size_t i = 0; i < kLateCauses; ++i) {
            const char* name = LateCauseName(static_cast<LateCause>(i));
            if (lc["causes"].contains(name)) m.late_causes.requests[i] += U(lc["causes"][name], "requests");
          }
        }
      }
      // The Anderson–Darling test is per agent (the superposed sends of several hosts are no
      // one process's gaps): the point carries the agent's that came closest to failing.
      if (g.contains("interarrival_test") && g["interarrival_test"].is_object()) {
        const json& ad = g["interarrival_test"];
        if (ad.contains("statistic") && ad["statistic"].is_number() && D(ad, "critical") > 0) {
          double ratio = D(ad, "statistic") / D(ad, "critical");
          if (ratio > worst_ad_ratio) {
            worst_ad_ratio = ratio;
            worst_ad_agent = a.name;
            m.interarrival.applicable = true;
            m.interarrival.statistic = D(ad, "statistic");
            m.interarrival.critical = D(ad, "critical");
            // contains() first: a const json's [] of a missing key reads freed memory.
            m.interarrival.passed = ad.contains("passed") && ad["passed"].is_boolean() && ad["passed"].get<bool>();
            m.interarrival.sample_size = static_cast<size_t>(U(ad, "sample_size"));
            if (ad.contains("span") && ad["span"].is_number_integer()) m.interarrival.span = ad["span"].get<int>();
            m.interarrival.method = S(ad, "method") + " (agent " + a.name + ", the closest to failing of " +
                                    std::to_string(agents.size()) + ")";
          }
        } else if (!m.interarrival.applicable) {
          m.interarrival.not_applicable_reason = S(ad, "not_applicable");
        }
      }
      if (g.contains("warnings") && g["warnings"].is_array()) {
        for (const auto& w : g["warnings"]) {
          if (w.is_string()) m.warnings.push_back(a.name + ": " + w.get<std::string>());
        }
      }
      if (response_timing.empty()) response_timing = S(g, "response_timing");
      if (send_timing.empty()) send_timing = S(g, "send_timing");
      for (const char* k : {"achieved_qps", "throughput_qps", "timely_ratio", "issued", "completed", "errors", "valid",
                            "invalid_reasons", "lateness_us", "latency_us", "lateness_causes", "generator_cpu_s",
                            "response_timing"}) {
        if (g.contains(k)) pa[k] = g[k];
      }
      const int64_t window_begin_ns =
          r.contains("window_begin_ns") && r["window_begin_ns"].is_number_integer() ? r["window_begin_ns"].get<int64_t>() : 0;
      pa["window_begin_ns"] = window_begin_ns;
      // How far its window began from the common one (its own clock; the offset already in).
      int64_t lag = 0;
      if (__builtin_sub_overflow(window_begin_ns, a.start_at_ns + total.warmup_ns, &lag)) {
        pa["start_lag_ns"] = nullptr;  // a window_begin_ns no clock gives
      } else {
        pa["start_lag_ns"] = lag;
      }
    }
    per_agent.push_back(pa);
  }
  m.response_timing = response_timing.empty() ? "unavailable (no agent returned a result)" : response_timing;
  m.send_timing = send_timing.empty() ? "unavailable (no agent returned a result)" : send_timing;
  if (!m.interarrival.applicable && m.interarrival.not_applicable_reason.empty()) {
    m.interarrival.not_applicable_reason = "no agent returned a send-gap test";
  }
  m.measured_s = static_cast<double>(total.duration_ns) / 1e9;
  MeasureDistortion(&m, total.validity_percentile);
  JudgeValidity(&m);
  for (const auto& why : lost) m.invalid_reasons.push_back(why);
  if (!lost.empty()) m.valid = false;
  json j = m.ToJson();
  j["agents"] = per_agent;
  j["driver"] = "agents";
  j["agents_with_results"] = agents_with_results;
  return j;
}

std::string DescribeSshFailure(const std::string& host, int exit_code, const std::string& err) {
  auto has = [&](const char* s) { return err.find(s) != std::string::npos; };
  std::string last;
  for (const std::string& line : Split(err, '\n')) {
    std::string t = Trim(line);
    if (!t.empty() && t.rfind("Warning: Permanently added", 0) != 0) last = t;
  }
  std::string tail = last.empty() ? "" : " (ssh said: " + last + ")";
  if (has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("Host key for") || has("host key for")) {
    return "the host key of " + host + " does not match the one in known_hosts" + tail +
           ": check that it is the machine you mean, then remove the old key (ssh-keygen -R " + host + ")";
  }
  if (has("Host key verification failed") || has("No ED25519 host key is known") || has("host key is known")) {
    return "the host key of " + host + " is not known or does not match known_hosts" + tail +
           "; ream never accepts a host key by itself: connect once with 'ssh " + host +
           "' to check and record it";
  }
  if (has("Permission denied")) {
    return host + " asked for a password or refused the key" + tail +
           "; ream runs ssh with BatchMode=yes and never types a password: install a key for that user "
           "(ssh-copy-id " + host + ") or name one in your ssh config (IdentityFile)";
  }
  if (has("Could not resolve hostname")) return "cannot resolve the host name " + host + tail;
  if (has("Connection refused")) return host + " refused the connection (is sshd running there, on that port?)" + tail;
  if (has("timed out") || has("No route to host") || has("Network is unreachable")) {
    return host + " did not answer" + tail;
  }
  if (exit_code == 127 || has("command not found") || has("not found")) {
    return "the command was not found on " + host + tail;
  }
  return "ssh to " + host + " failed with status " + std::to_string(exit_code) + tail;
}

std::string ProbeScript(const std::string& cached_name) {
  // POSIX sh, for whatever login shell the remote user has; ream on the remote PATH may be
  // absent (then version= is empty).
  // The cache directory is made here too, so a copy needs no second login for it.
  return "v=$(ream --version 2>/dev/null | head -n 1); d=\"${XDG_CACHE_HOME:-$HOME/.cache}/ream\"; "
         "mkdir -p \"$d\" 2>/dev/null; echo \"version=$v\"; echo \"cache=$d\"; "
         "if [ -x \"$d/" + cached_name + "\" ]; then echo cached=yes; fi; echo \"arch=$(uname -m)\"";
}

Result<RemoteProbe> ParseProbe(const std::string& out) {
  RemoteProbe p;
  bool saw_cache = false;
  for (const std::string& raw : Split(out, '\n')) {
    std::string line = Trim(raw);
    if (line.rfind("version=", 0) == 0) p.version = line.substr(8);
    if (line.rfind("cache=", 0) == 0) {
      p.cache_dir = line.substr(6);
      saw_cache = true;
    }
    if (line == "cached=yes") p.cached = true;
    if (line.rfind("arch=", 0) == 0) p.arch = line.substr(5);
  }
  if (!saw_cache || p.cache_dir.empty() || p.cache_dir[0] != '/') {
    return Corrupt("the remote shell's answer to the probe is not what ream expects: '" + out + "'");
  }
  return p;
}

}  // namespace ream::agent
