#include "store/export.h"

#include <cstdio>

#include "store/hdr_log.h"

namespace ream {
namespace {

std::string Num(const std::optional<double>& v) {
  if (!v) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", *v);
  return buf;
}
std::string Num(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : ""; }

std::string SafeName(const std::string& s) {
  std::string o;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    o.push_back(ok ? c : '_');
  }
  return o.empty() ? "_" : o;
}

Result<std::vector<ExperimentRecord>> Select(Store& store, const std::string& experiment) {
  if (experiment.empty()) return store.ListExperiments();
  REAM_ASSIGN_OR_RETURN(auto e, store.FindExperiment(experiment));
  if (!e) return NotFound("no experiment named '" + experiment + "' in " + store.path() + " (see 'ream list')");
  return std::vector<ExperimentRecord>{*e};
}

}  // namespace

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += "\"\"";
    else o.push_back(c);
  }
  return o + "\"";
}

Result<ExportFormat> ParseExportFormat(const std::string& name) {
  if (name == "csv") return ExportFormat::kCsv;
  if (name == "json") return ExportFormat::kJson;
  if (name == "hdrlog" || name == "hdr") return ExportFormat::kHdrLog;
  return InvalidArgument("--format " + name + ": unknown export format (use csv, json or hdrlog)");
}

Result<nlohmann::json> ExperimentToJson(Store& store, const ExperimentRecord& e) {
  using nlohmann::json;
  json j;
  j["id"] = e.id;
  j["name"] = e.name;
  j["status"] = StatusName(e.status);
  j["failure"] = e.failure;
  j["created_ns"] = e.created_ns;
  j["finished_ns"] = e.finished_ns ? json(*e.finished_ns) : json(nullptr);
  j["workload"] = e.workload;
  j["protocol"] = e.protocol;
  j["qos"] = {{"percentile", e.qos.percentile},
              {"fixed_target_us", e.qos.fixed_target_us ? json(*e.qos.fixed_target_us) : json(nullptr)},
              {"service_multiplier", e.qos.service_multiplier},
              {"at_utilization", e.qos.at_utilization},
              {"min_timely_ratio", e.qos.min_timely_ratio},
              {"max_rate_error", e.qos.max_rate_error}};
  j["spec"] = e.spec;
  j["spec_text"] = e.spec_text;
  REAM_ASSIGN_OR_RETURN(auto env, store.GetEnvironment(e.id));
  if (env) {
    j["environment"] = {{"ream_version", env->ream_version}, {"ream_commit", env->ream_commit},
                        {"hostname", env->hostname},         {"kernel", env->kernel},
                        {"cpu_model", env->cpu_model},       {"topology", env->topology},
                        {"doctor", env->doctor},             {"recorded_ns", env->recorded_ns}};
  } else {
    j["environment"] = nullptr;
  }
  json runs = json::array();
  REAM_ASSIGN_OR_RETURN(auto rs, store.ListRuns(e.id));
  for (const auto& r : rs) {
    json rj = {{"id", r.id},
               {"scenario", r.key.scenario},
               {"partition", r.partition},
               {"partition_label", r.key.partition_label},
               {"repetition", r.key.repetition},
               {"workload_cpus", r.workload_cpus},
               {"generator_cpus", r.generator_cpus},
               {"status", StatusName(r.status)},
               {"failure", r.failure}};
    // A run beside co-runners says which, with their alone figures (schema 8).
    if (!r.key.corunner_set.empty()) {
      rj["tenants"] = r.key.corunner_set;
      rj["corunners"] = r.corunners ? r.corunners->ToJson() : nlohmann::json();
    }
    // A run of a campaign's unit says where and how it ran (schema 10); a run of `ream run`
    // ran on the experiment's host, which "environment" names.
    if (!r.provenance.is_null()) {
      rj["host"] = r.host;
      rj["provenance"] = r.provenance;
    }
    json points = json::array();
    REAM_ASSIGN_OR_RETURN(auto ps, store.ListPoints(r.id));
    for (const auto& p : ps) points.push_back(PointToJson(p, e.load_axis));
    rj["points"] = points;
    runs.push_back(rj);
  }
  j["runs"] = runs;
  return j;
}

Result<std::map<std::string, std::string>> ExportStore(Store& store, ExportFormat format,
                                                       const std::string& experiment) {
  REAM_ASSIGN_OR_RETURN(auto exps, Select(store, experiment));
  std::map<std::string, std::string> files;
  if (format == ExportFormat::kJson) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& e : exps) {
      REAM_ASSIGN_OR_RETURN(auto j, ExperimentToJson(store, e));
      all.push_back(std::move(j));
    }
    files["experiments.json"] = nlohmann::json{{"schema_version", store.schema_version()},
                                               {"experiments", all}}
                                    .dump(2) +
                                "\n";
    return files;
  }
  if (format == ExportFormat::kCsv) {
    std::string ex = "experiment_id,name,status,failure,workload,protocol,qos_percentile,"
                     "qos_fixed_target_us,qos_service_multiplier,qos_at_utilization,"
                     "min_timely_ratio,max_rate_error,created_ns,finished_ns\n";
    std::string runs = "run_id,experiment,scenario,partition,repetition,workload_cpus,"
                       "generator_cpus,status,failure\n";
    // The level's column is named by the experiments' load axis: target_qps, as it has always
    // been, or target_sessions; target_load when the file mixes axes.
    LoadAxis axis = exps.empty() ? LoadAxis::kQps : exps.front().load_axis;
    bool mixed = false;
    for (const auto& e : exps) mixed = mixed || e.load_axis != axis;
    std::string level_column = mixed ? "target_load" : TargetLoadColumn(axis);
    std::string pts = "point_id,experiment,scenario,partition,repetition,seq," + level_column +
                      ",status,failure,workload_exit_code,workload_exit,valid,invalid_reasons,"
                      "service_reported";
    for (const auto& c : PointMetricColumns()) pts += "," + c;
    // Columns added after the metric ones go last, so a reader indexing the old ones by
    // position reads what it always did.
    pts += ",unavailable,reconnections,lost_requests\n";
    for (const auto& e : exps) {
      ex += std::to_string(e.id) + "," + CsvField(e.name) + "," + std::string(StatusName(e.status)) + "," +
            CsvField(e.failure) + "," + CsvField(e.workload) + "," + CsvField(e.protocol) + "," +
            Num(std::optional<double>(e.qos.percentile)) + "," + Num(e.qos.fixed_target_us) + "," +
            Num(std::optional<double>(e.qos.service_multiplier)) + "," +
            Num(std::optional<double>(e.qos.at_utilization)) + "," +
            Num(std::optional<double>(e.qos.min_timely_ratio)) + "," +
            Num(std::optional<double>(e.qos.max_rate_error)) + "," + std::to_string(e.created_ns) +
            "," + Num(e.finished_ns) + "\n";
      REAM_ASSIGN_OR_RETURN(auto rs, store.ListRuns(e.id));
      for (const auto& r : rs) {
        std::string head = CsvField(e.name) + "," + CsvField(r.key.scenario) + "," +
                           CsvField(r.key.partition_label) + "," + std::to_string(r.key.repetition);
        runs += std::to_string(r.id) + "," + head + "," + CsvField(r.workload_cpus) + "," +
                CsvField(r.generator_cpus) + "," + std::string(StatusName(r.status)) + "," +
                CsvField(r.failure) + "\n";
        REAM_ASSIGN_OR_RETURN(auto ps, store.ListPoints(r.id));
        for (const auto& p : ps) {
          nlohmann::json pj = PointToJson(p, e.load_axis);
          pts += std::to_string(p.id) + "," + head + "," + std::to_string(p.seq) + "," +
                 Num(std::optional<double>(p.target_load)) + "," + std::string(StatusName(p.status)) + "," +
                 CsvField(p.failure) + "," + Num(p.workload_exit_code) + "," +
                 CsvField(p.workload_exit) + "," + (p.valid ? (*p.valid ? "1" : "0") : "") + "," +
                 CsvField(nlohmann::json(p.invalid_reasons).dump()) + "," +
                 (p.service_reported ? (*p.service_reported ? "1" : "0") : "");
          for (const auto& c : PointMetricColumns()) {
            const auto& v = pj[c];
            std::string s;
            if (v.is_number_integer()) s = std::to_string(v.get<int64_t>());
            else if (v.is_number()) s = Num(std::optional<double>(v.get<double>()));
            pts += "," + s;
          }
          pts += "," + CsvField(nlohmann::json(p.unavailable).dump()) + "," + Num(p.reconnections) + "," +
                 Num(p.lost_requests) + "\n";
        }
      }
    }
    files["experiments.csv"] = ex;
    files["runs.csv"] = runs;
    files["points.csv"] = pts;
    return files;
  }
  // HdrHistogram logs: one per run and kind; each load level is one interval.
  for (const auto& e : exps) {
    REAM_ASSIGN_OR_RETURN(auto rs, store.ListRuns(e.id));
    for (const auto& r : rs) {
      REAM_ASSIGN_OR_RETURN(auto ps, store.ListPoints(r.id));
      std::map<std::string, std::vector<std::pair<const PointRecord*, Histogram>>> by_kind;
      for (const auto& p : ps) {
        REAM_ASSIGN_OR_RETURN(auto hs, store.GetHistograms(p.id));
        for (auto& [kind, h] : hs) by_kind[kind].push_back({&p, std::move(h)});
      }
      for (const auto& [kind, list] : by_kind) {
        if (list.empty()) continue;
        double t0 = static_cast<double>(list.front().first->started_ns) / 1e9;
        std::vector<HdrLogInterval> ivs;
        for (const auto& [p, h] : list) {
          char tag[64];
          std::snprintf(tag, sizeof tag, "%s%.10g", std::string(LoadAxisName(e.load_axis)).c_str(),
                        p->target_load);
          ivs.push_back({tag, static_cast<double>(p->started_ns) / 1e9 - t0,
                         p->duration_s.value_or(0), &h});
        }
        std::string comment = "ream " + kind + " latency (ns), experiment " + e.name +
                              ", scenario " + r.key.scenario + ", partition " +
                              r.key.partition_label + ", repetition " +
                              std::to_string(r.key.repetition) + "; Tag=" +
                              std::string(LoadAxisName(e.load_axis)) + "<target load>";
        REAM_ASSIGN_OR_RETURN(std::string log, WriteHdrLog(t0, comment, ivs));
        std::string name = SafeName(e.name) + "/" + SafeName(r.key.scenario) + "." +
                           SafeName(r.key.partition_label) +
                           (r.key.corunner_set.empty() ? "" : ".with-" + SafeName(r.key.corunner_set)) + ".rep" +
                           std::to_string(r.key.repetition) + "." + kind + ".hlog";
        files[name] = log;
      }
    }
  }
  return files;
}

}  // namespace ream
