#include "experiment/point_columns.h"

#include <cstdint>

#include "load/generator.h"

namespace ream {
namespace {

std::optional<double> OptNum(const nlohmann::json& j, const char* a, const char* b = nullptr) {
  const nlohmann::json* v = j.contains(a) ? &j[a] : nullptr;
  if (v && b) v = (v->is_object() && v->contains(b)) ? &(*v)[b] : nullptr;
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}
std::optional<int64_t> OptInt(const nlohmann::json& j, const char* a) {
  // An integer as the generator writes it; a fraction (1e300) would convert with undefined behaviour.
  if (!j.contains(a) || !j[a].is_number_integer()) return std::nullopt;
  return j[a].get<int64_t>();
}

}  // namespace

Result<nlohmann::json> ExtractGeneratorJson(const std::string& text) {
  size_t start = text.rfind("\n{\n") != std::string::npos ? text.find("\n{\n") + 1 : std::string::npos;
  if (text.rfind("{\n", 0) == 0) start = 0;
  if (start == std::string::npos) return Corrupt("the generator printed no JSON result");
  size_t end = text.find("\n}", start);
  if (end == std::string::npos) return Corrupt("the generator's JSON result is truncated");
  auto j = nlohmann::json::parse(text.substr(start, end + 2 - start), nullptr, false);
  if (j.is_discarded()) return Corrupt("the generator's JSON result does not parse");
  return j;
}

void FillFromGenerator(const nlohmann::json& g, PointData* d) {
  PointRecord& p = d->point;
  p.generator = g;
  p.generator.erase("histograms");  // stored decoded-ready in the histograms table
  p.issued = OptInt(g, "issued");
  p.completed = OptInt(g, "completed");
  p.errors = OptInt(g, "errors");
  p.achieved_qps = OptNum(g, "achieved_qps");
  p.throughput_qps = OptNum(g, "throughput_qps");
  p.timely_ratio = OptNum(g, "timely_ratio");
  p.timely_tolerance_us = OptNum(g, "timely_tolerance_us");
  if (g.contains("valid") && g["valid"].is_boolean()) p.valid = g["valid"].get<bool>();
  if (g.contains("invalid_reasons") && g["invalid_reasons"].is_array()) {
    for (const auto& r : g["invalid_reasons"]) {
      if (r.is_string()) p.invalid_reasons.push_back(r.get<std::string>());
    }
  }
  p.latency_mean_us = OptNum(g, "latency_us", "mean");
  p.latency_stddev_us = OptNum(g, "latency_us", "stddev");
  p.latency_p50_us = OptNum(g, "latency_us", "p50");
  p.latency_p95_us = OptNum(g, "latency_us", "p95");
  p.latency_p99_us = OptNum(g, "latency_us", "p99");
  p.latency_p999_us = OptNum(g, "latency_us", "p999");
  p.latency_max_us = OptNum(g, "latency_us", "max");
  bool server_times = g.contains("service_us") && g["service_us"].is_object();
  p.service_reported = server_times;
  if (server_times) {
    p.service_mean_us = OptNum(g, "service_us", "mean");
    p.service_p50_us = OptNum(g, "service_us", "p50");
    p.service_p95_us = OptNum(g, "service_us", "p95");
    p.service_p99_us = OptNum(g, "service_us", "p99");
    p.queue_mean_us = OptNum(g, "queue_us", "mean");
    p.queue_p95_us = OptNum(g, "queue_us", "p95");
  } else {
    std::string why = g.value("server_times_unavailable", std::string("the protocol does not report service time"));
    for (const char* c : {"service_mean_us", "service_p50_us", "service_p95_us", "service_p99_us",
                          "queue_mean_us", "queue_p95_us"}) {
      p.unavailable[c] = why;
    }
  }
  p.lateness_p50_us = OptNum(g, "lateness_us", "p50");
  p.lateness_p99_us = OptNum(g, "lateness_us", "p99");
  p.lateness_max_us = OptNum(g, "lateness_us", "max");
  p.generator_cpu_s = OptNum(g, "generator_cpu_s");
  p.duration_s = OptNum(g, "duration_s");
  // Measured until known: which check ended the point, and its interval then.
  if (g.is_object() && g.contains("until") && g["until"].is_object()) {
    const nlohmann::json& u = g["until"];
    p.until_decided = u.value("check", std::string()) + ": " + u.value("decided_by", std::string());
    if (u.contains("interval") && u["interval"].is_number()) p.until_interval = u["interval"].get<double>();
  }
  // Connections the server closed: reported by every generator that reconnects (the key is
  // there, 0 when none closed). The measured requests lost with a connection are the error
  // reasons the generator counts them under (load/generator_thread.cc): written and
  // unanswered when it closed ("connection lost: ..."), or due while it was down ("not
  // sent: ..."). The same rule as the 6 -> 7 migration's.
  if (auto n = OptInt(g, "reconnections")) {
    p.reconnections = n;
    int64_t lost = 0;
    nlohmann::json reasons = nlohmann::json::object();
    if (g.contains("error_reasons") && g["error_reasons"].is_object()) {
      for (const auto& [reason, count] : g["error_reasons"].items()) {
        // A count: a negative one (or a fraction) is not the generator's.
        const std::optional<uint64_t> n = JsonCount(count);
        if (!n) continue;
        if (reason.rfind("connection lost: ", 0) != 0 && reason.rfind("not sent: ", 0) != 0) continue;
        const uint64_t c = *n;
        if (c > INT64_MAX || __builtin_add_overflow(lost, static_cast<int64_t>(c), &lost)) lost = INT64_MAX;
        reasons[reason] = count;
      }
    }
    p.lost_requests = lost;
    p.lost_reasons = reasons;
  }
  if (g.contains("histograms") && g["histograms"].is_object()) {
    const std::pair<const char*, const char*> kinds[] = {
        {"latency_ns", kHistSojourn}, {"latency_from_send_ns", kHistSojournFromSend},
        {"service_ns", kHistService}, {"queue_ns", kHistQueue}, {"lateness_ns", kHistLateness},
        // Session load (load/session_load.h): a chunk's response + transfer time, and its
        // response time alone, from the chunk's scheduled instant. New kinds, no new column.
        {"chunk_ns", "chunk"}, {"first_byte_ns", "first_byte"},
        // Drawn sizes and multigets (load/distribution.h): each key's latency, and the sizes of
        // the keys, values and batches sent, in bytes (keys for batches). Kinds, not columns.
        {"latency_per_key_ns", "latency_per_key"}, {"key_bytes", "key_bytes"}, {"value_bytes", "value_bytes"},
        {"multiget_keys", "multiget_keys"}};
    for (const auto& [src, dst] : kinds) {
      if (!server_times && (std::string(dst) == kHistService || std::string(dst) == kHistQueue)) continue;
      const auto& h = g["histograms"];
      if (!h.contains(src) || !h[src].is_string()) continue;
      auto decoded = Histogram::Decode(h[src].get<std::string>());
      if (decoded.ok()) d->histograms[dst] = std::move(decoded).value();
    }
  }
}

void FillFromMonitor(const MonitorReport& r, PointData* d) {
  PointRecord& p = d->point;
  nlohmann::json j = r.ToJson();
  d->timeline = {{"interval_s", j.value("interval_s", 0.0)}, {"timeline", j["timeline"]}};
  j.erase("timeline");
  p.monitor = j;
  struct Map {
    std::optional<double> PointRecord::*column;
    const char* name;
    const char* metric;
    const char* family;
  };
  const Map maps[] = {
      {&PointRecord::cpu_util, "cpu_util", "cpu_utilization", "cpu"},
      {&PointRecord::net_rx_bps, "net_rx_bps", "net_rx_bytes_per_s", "net"},
      {&PointRecord::net_tx_bps, "net_tx_bps", "net_tx_bytes_per_s", "net"},
      {&PointRecord::disk_read_bps, "disk_read_bps", "disk_read_bytes_per_s", "disk"},
      {&PointRecord::disk_write_bps, "disk_write_bps", "disk_write_bytes_per_s", "disk"},
      {&PointRecord::disk_read_iops, "disk_read_iops", "disk_read_iops", "disk"},
      {&PointRecord::disk_write_iops, "disk_write_iops", "disk_write_iops", "disk"},
      {&PointRecord::mem_bytes, "mem_bytes", "memory_bytes", "memory"},
      {&PointRecord::mem_bw_bps, "mem_bw_bps", "mem_bandwidth_bytes_per_s", "mem_bandwidth"},
      {&PointRecord::llc_occupancy_bytes, "llc_occupancy_bytes", "llc_occupancy_bytes", "llc_occupancy"},
  };
  auto reason = [&](const char* family) {
    auto it = r.unavailable.find(family);
    if (it != r.unavailable.end()) return it->second;
    for (const auto& [k, v] : r.unavailable) {
      if (k.find(family) != std::string::npos) return v;
    }
    return std::string("the monitor took no sample of it in this window");
  };
  for (const auto& m : maps) {
    p.*(m.column) = r.Mean(m.metric);
    if (!(p.*(m.column))) p.unavailable[m.name] = reason(m.family);
  }
  if (auto used = r.Mean("cpu_used")) {
    p.server_cpu_s = *used * r.duration_s;
  } else {
    p.unavailable["server_cpu_s"] = reason("cpu");
  }
}

}  // namespace ream
