#include "analysis/store_loader.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "partition/spec.h"
#include "platform/platform.h"

namespace ream::analysis {
namespace {

std::string Iso8601(int64_t ns) {
  std::time_t t = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return b;
}

Metric FromColumn(const std::optional<double>& v, const PointRecord& p, const std::string& col) {
  if (v) return Metric::Of(*v);
  auto it = p.unavailable.find(col);
  return Metric::Unavailable(it != p.unavailable.end() ? it->second : "not recorded");
}

// The client nodes' figures of a point from its generator document's "agents"
// (remote/agent_protocol.cc MergeAgentResults). A figure an agent did not report stays
// unset: an agent that died has a name, a share, a clock and its failure, and nothing else.
std::vector<AgentFigures> AgentsOf(const nlohmann::json& agents) {
  auto num = [](const nlohmann::json& o, const char* k) -> std::optional<double> {
    if (o.is_object() && o.contains(k) && o[k].is_number()) return o[k].get<double>();
    return std::nullopt;
  };
  std::vector<AgentFigures> out;
  for (const auto& j : agents) {
    if (!j.is_object()) continue;
    AgentFigures a;
    if (j.contains("name") && j["name"].is_string()) a.name = j["name"].get<std::string>();
    a.target_qps = num(j, "target_qps").value_or(0);
    a.achieved_qps = num(j, "achieved_qps").value_or(0);
    a.timely_ratio = num(j, "timely_ratio").value_or(0);
    if (j.contains("lateness_us")) a.lateness_p99_us = num(j["lateness_us"], "p99");
    if (j.contains("latency_us")) a.latency_p99_us = num(j["latency_us"], "p99");
    if (j.contains("valid") && j["valid"].is_boolean()) a.valid = j["valid"].get<bool>();
    if (j.contains("failure") && j["failure"].is_string()) a.failure = j["failure"].get<std::string>();
    if (j.contains("invalid_reasons") && j["invalid_reasons"].is_array()) {
      for (const auto& r : j["invalid_reasons"]) {
        if (r.is_string()) a.invalid_reasons.push_back(r.get<std::string>());
      }
    }
    if (j.contains("clock") && j["clock"].is_object()) {
      const auto& c = j["clock"];
      auto samples = num(c, "samples");
      a.clock_samples = static_cast<int>(samples.value_or(0));
      if (a.clock_samples > 0) {
        if (auto o = num(c, "offset_ns")) a.clock_offset_us = *o / 1e3;
        if (auto r = num(c, "rtt_ns")) a.clock_rtt_us = *r / 1e3;
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

// Threads and distinct physical cores of a run, from its CPU list and the topology.
void Placement(const RunRecord& r, const nlohmann::json& topology, RunData* out) {
  auto cpus = ParseCpuList(r.workload_cpus);
  if (cpus.ok() && !cpus->empty()) {
    out->cpus = *cpus;
    out->threads = static_cast<int>(cpus->size());
    std::set<size_t> cores;
    bool all_known = true;
    for (int cpu : *cpus) {
      bool found = false;
      if (topology.contains("cores") && topology["cores"].is_array()) {
        for (size_t i = 0; i < topology["cores"].size(); ++i) {
          const auto& c = topology["cores"][i];
          if (!c.contains("cpus")) continue;
          for (const auto& id : c["cpus"]) {
            if (id.is_number_integer() && id.get<int>() == cpu) {
              cores.insert(i);
              found = true;
            }
          }
        }
      }
      all_known = all_known && found;
    }
    if (all_known) {
      out->physical_cores = static_cast<int>(cores.size());
      return;
    }
  }
  // From the scenario's name: "N-ST" spreads over N cores, "N-SMT" packs siblings.
  int n = 0;
  char kind[8] = {0};
  if (std::sscanf(r.key.scenario.c_str(), "%d-%7s", &n, kind) == 2 && n > 0) {
    if (out->cpus.empty()) out->threads = n;
    out->physical_cores = std::string(kind) == "SMT" ? (n + 1) / 2 : n;
  } else {
    out->physical_cores = out->threads;
  }
}

}  // namespace

Result<Partition> PartitionFromKnobs(const nlohmann::json& knobs, const std::string& label,
                                     const KnobTable& table) {
  Partition p;
  p.label = label == "default" || label.empty() ? "" : label;
  if (!knobs.is_object()) return p;
  for (const auto& [k, v] : knobs.items()) {
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    const Knob* knob = table.Find(k);
    if (knob && !knob->limits) continue;  // qualifies other knobs (the disk device): not a limit itself
    if (!knob || knob->resource.empty()) {
      // Knobs without an amount for the analysis (IOPS limits, ...) still make the run limited.
      p.other[k] = text;
      continue;
    }
    // Read with the parser that enforced the partition, so the analysis sees the same value.
    auto x = knob->parse(text, k);
    if (!x.ok()) return InvalidArgument("partition knob " + k + " = '" + text + "' cannot be read");
    if (knob->has_amount && !knob->has_amount(*x)) {
      p.other[k] = text;
      continue;
    }
    double amount = knob->amount(*x);
    // Knobs limiting one resource (disk read and write rates): the tighter limit is the one.
    auto [it, fresh] = p.limits.emplace(knob->resource, amount);
    if (!fresh) it->second = std::min(it->second, amount);
  }
  return p;
}

Result<ExperimentData> LoadExperiment(Store& store, const std::string& name) {
  REAM_ASSIGN_OR_RETURN(auto all, store.ListExperiments());
  if (all.empty()) {
    return NotFound("the database " + store.path() +
                    " holds no experiment; run one with 'ream run SPEC.toml --db " +
                    store.path() + "'");
  }
  const ExperimentRecord* e = nullptr;
  if (name.empty()) {
    for (const auto& x : all) {
      if (!e || x.created_ns > e->created_ns || (x.created_ns == e->created_ns && x.id > e->id)) {
        e = &x;
      }
    }
  } else {
    for (const auto& x : all) {
      if (x.name == name) e = &x;
    }
    if (!e) {
      std::string names;
      for (const auto& x : all) names += (names.empty() ? "" : ", ") + x.name;
      return NotFound("no experiment named '" + name + "' in " + store.path() +
                      " (it has: " + names + ")");
    }
  }
  ExperimentData d;
  d.id = e->id;
  d.name = e->name;
  d.workload = e->workload;
  d.protocol = e->protocol;
  d.created = Iso8601(e->created_ns);
  d.status = std::string(StatusName(e->status));
  d.load_axis = e->load_axis;
  d.spec_text = e->spec_text;
  // The spec's [model], as the parsed spec was stored (older
  // databases have no "model": the defaults stand).
  if (e->spec.is_object() && e->spec.contains("model") && e->spec["model"].is_object()) {
    const nlohmann::json& m = e->spec["model"];
    d.model.messages_per_op = m.value("messages_per_op", d.model.messages_per_op);
    if (m.contains("range") && m["range"].is_array() && m["range"].size() == 2 && m["range"][0].is_number() &&
        m["range"][1].is_number()) {
      d.model.range_low = m["range"][0].get<double>();
      d.model.range_high = m["range"][1].get<double>();
    }
    d.model.range_given = m.value("range_given", false);
    if (m.contains("service_scv") && m["service_scv"].is_number()) d.model.service_scv = m["service_scv"].get<double>();
    d.model.service_scv_source = m.value("service_scv_source", std::string());
  }
  if (e->spec.is_object() && e->spec.contains("manager") && e->spec["manager"].is_object() &&
      e->spec["manager"].contains("peak_qps") && e->spec["manager"]["peak_qps"].is_number()) {
    d.manager_peak_qps = e->spec["manager"]["peak_qps"].get<double>();
  }
  d.qos.percentile = e->qos.percentile;
  d.qos.fixed_target_us = e->qos.fixed_target_us;
  d.qos.service_multiple = e->qos.service_multiplier;
  d.qos.at_utilization = e->qos.at_utilization;
  d.timely_threshold = e->qos.min_timely_ratio;
  d.rate_tolerance = e->qos.max_rate_error;
  REAM_ASSIGN_OR_RETURN(auto env, store.GetEnvironment(e->id));
  if (env) {
    d.environment = {{"ream_version", env->ream_version}, {"ream_commit", env->ream_commit},
                     {"hostname", env->hostname},         {"kernel", env->kernel},
                     {"cpu_model", env->cpu_model},       {"topology", env->topology},
                     {"doctor", env->doctor}};
    if (!env->timing.is_null()) d.environment["timing_floor"] = env->timing;
  }
  nlohmann::json topology = env ? env->topology : nlohmann::json();
  REAM_ASSIGN_OR_RETURN(auto runs, store.ListRuns(e->id));
  for (const auto& r : runs) {
    RunData run;
    run.id = r.id;
    run.scenario = r.key.scenario;
    run.repetition = r.key.repetition;
    auto part = PartitionFromKnobs(r.partition, r.key.partition_label);
    if (!part.ok()) return part.status().Annotate("experiment '" + d.name + "'");
    run.partition = *part;
    if (r.sweep.is_object()) run.load_range_note = r.sweep.value("why", std::string());
    run.corunner_set = r.key.corunner_set;
    if (r.corunners) run.corunners = *r.corunners;
    REAM_ASSIGN_OR_RETURN(run.windows, store.ListManagerWindows(r.id));
    Placement(r, topology, &run);
    REAM_ASSIGN_OR_RETURN(auto points, store.ListPoints(r.id));
    for (const auto& p : points) {
      PointData pd;
      pd.id = p.id;
      pd.target_load = p.target_load;
      pd.achieved_qps = p.achieved_qps.value_or(0);
      pd.throughput_qps = p.throughput_qps.value_or(0);
      pd.failed = p.status == PointStatus::kFailed;
      pd.valid = !pd.failed && p.valid.value_or(false);
      pd.invalid_reasons = p.invalid_reasons;
      if (pd.failed) {
        pd.invalid_reasons.insert(pd.invalid_reasons.begin(),
                                  "failed: " + (p.failure.empty() ? p.workload_exit : p.failure));
      }
      pd.timely_ratio = p.timely_ratio.value_or(0);
      pd.completed = static_cast<uint64_t>(p.completed.value_or(0));
      pd.errors = static_cast<uint64_t>(p.errors.value_or(0));
      pd.latency_mean_us = p.latency_mean_us.value_or(0);
      pd.p50_us = p.latency_p50_us.value_or(0);
      pd.p95_us = p.latency_p95_us.value_or(0);
      pd.p99_us = p.latency_p99_us.value_or(0);
      pd.p999_us = p.latency_p999_us.value_or(0);
      if (p.service_reported.value_or(false) && p.service_mean_us) {
        pd.service_mean_us = p.service_mean_us;
      }
      pd.cpu_util = FromColumn(p.cpu_util, p, "cpu_util");
      pd.net_rx_bps = FromColumn(p.net_rx_bps, p, "net_rx_bps");
      pd.net_tx_bps = FromColumn(p.net_tx_bps, p, "net_tx_bps");
      pd.disk_read_bps = FromColumn(p.disk_read_bps, p, "disk_read_bps");
      pd.disk_write_bps = FromColumn(p.disk_write_bps, p, "disk_write_bps");
      pd.membw_bps = FromColumn(p.mem_bw_bps, p, "mem_bw_bps");
      if (pd.membw_bps.has() && p.monitor.is_object() && p.monitor.contains("methods") &&
          p.monitor["methods"].is_object() && p.monitor["methods"].contains("mem_bandwidth") &&
          p.monitor["methods"]["mem_bandwidth"].is_string()) {
        pd.membw_method = p.monitor["methods"]["mem_bandwidth"].get<std::string>();
      }
      pd.llc_bytes = FromColumn(p.llc_occupancy_bytes, p, "llc_occupancy_bytes");
      pd.memory_bytes = FromColumn(p.mem_bytes, p, "mem_bytes");
      if (p.generator.is_object() && p.generator.contains("connections") &&
          p.generator["connections"].is_number_integer()) {
        pd.clients = p.generator["connections"].get<int>();
      }
      pd.network = p.network;
      pd.lateness_p50_us = p.lateness_p50_us;
      pd.lateness_p99_us = p.lateness_p99_us;
      pd.reconnections = p.reconnections;
      if (p.until_decided) {
        pd.until_decided = p.until_decided;
        pd.until_measured_s = p.duration_s;
        pd.until_interval = p.until_interval;
      }
      pd.lost_requests = p.lost_requests;
      if (p.lost_reasons.is_object()) {
        for (const auto& [reason, n] : p.lost_reasons.items()) {
          if (n.is_number_integer()) pd.lost_reasons[reason] = n.get<int64_t>();
        }
      }
      if (p.generator.is_object()) {
        const auto& g = p.generator;
        if (g.contains("lateness_causes") && g["lateness_causes"].is_object() &&
            g["lateness_causes"].contains("causes") && g["lateness_causes"]["causes"].is_object()) {
          for (const auto& [cause, c] : g["lateness_causes"]["causes"].items()) {
            if (c.is_object() && c.contains("share_of_issued") && c["share_of_issued"].is_number()) {
              pd.late_shares[cause] = c["share_of_issued"].get<double>();
            }
          }
        }
        if (g.contains("keep_awake_cpus") && g["keep_awake_cpus"].is_string()) {
          pd.keep_awake_cpus = g["keep_awake_cpus"].get<std::string>();
        }
        if (g.contains("keep_awake_workload") && g["keep_awake_workload"].is_string()) {
          pd.keep_awake_workload = g["keep_awake_workload"].get<std::string>();
        }
        if (g.contains("keep_awake_how") && g["keep_awake_how"].is_string()) {
          pd.keep_awake_how = g["keep_awake_how"].get<std::string>();
        }
        if (g.contains("agents") && g["agents"].is_array()) pd.agents = AgentsOf(g["agents"]);
        // Session load's figures (load/session_load.h), kept whole in the generator's JSON.
        if (g.contains("sessions") && g["sessions"].is_object()) {
          const auto& s = g["sessions"];
          auto num = [&](const char* k) { return s.contains(k) && s[k].is_number() ? s[k].get<double>() : 0.0; };
          SessionPoint sp;
          sp.sessions = num("sessions");
          sp.chunk_play_ms = num("chunk_play_ms");
          sp.chunks_requested = num("chunks_requested");
          sp.chunks_completed = num("chunks_completed");
          sp.deadline_miss_ratio = s.contains("deadline_miss_ratio") && s["deadline_miss_ratio"].is_number()
                                       ? s["deadline_miss_ratio"].get<double>()
                                       : 1.0;  // nothing requested: nothing arrived in time
          sp.throughput_bytes_per_s = num("throughput_bytes_per_s");
          pd.session = sp;
        }
      }
      if (!pd.failed) {
        REAM_ASSIGN_OR_RETURN(auto hists, store.GetHistograms(p.id));
        auto it = hists.find(kHistSojourn);
        if (it != hists.end() && it->second.count() > 0) pd.latency_hist_ns = it->second;
      }
      pd.corunners = p.corunners;
      pd.batch = p.batch;
      if (p.generator.is_object() && p.generator.contains("latency_from_send_us")) {
        pd.latency_from_send_us = p.generator["latency_from_send_us"];
      }
      run.points.push_back(std::move(pd));
    }
    if (r.status == RunStatus::kSkipped) {
      d.skipped_scenarios[r.key.scenario] = r.failure;
      continue;
    }
    if ((r.status == RunStatus::kFailed || r.status == RunStatus::kUnavailable) &&
        run.points.empty()) {
      run.failed = true;
      run.failure = r.failure.empty() ? std::string(StatusName(r.status)) : r.failure;
    }
    d.runs.push_back(std::move(run));
  }
  return d;
}

}  // namespace ream::analysis
