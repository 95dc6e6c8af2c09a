// The analysis as JSON (`ream analyze --json`): every figure, null with a reason where it is
// unavailable. The report reads the same object, so the page and the console agree. ToJson
// writes the experiment's own keys and lets each analysis step (steps.h) write its part.
#include "analysis/analysis.h"
#include "analysis/step_functions.h"

namespace ream::analysis {
namespace {

using nlohmann::json;

json Opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json MetricJson(const Metric& m) {
  if (m.has()) return *m.value;
  return json{{"value", nullptr}, {"unavailable", m.unavailable}};
}

json PartitionJson(const Partition& p) {
  json j = json::object();
  j["label"] = p.Label();
  const KnobTable& knobs = BuiltinKnobs();
  for (const auto& [name, v] : p.limits) {
    const LimitedResource* r = knobs.FindResource(name);
    if (!r) {
      j[name] = v;
    } else if (r->integral) {
      j[r->json_field] = static_cast<int64_t>(v);
    } else {
      j[r->json_field] = v;
    }
  }
  return j;
}

json RatioJson(const Ratio& r) { return {{"value", Opt(r.value)}, {"status", r.status}}; }

json RegressionJson(const std::optional<CurveRegression>& r) {
  if (!r) return nullptr;
  return {{"slope_us_per_qps", r->fit.slope * 1e6},
          {"intercept_us", r->fit.intercept * 1e6},
          {"base_us", r->base_s * 1e6},
          {"r2", r->fit.r2},
          {"n", r->fit.n}};
}

json TableJson(const RegressionTable& t) {
  return {{"statistic", t.statistic},
          {"measured", RegressionJson(t.measured)},
          {"model", RegressionJson(t.modeled)},
          {"base_load_qps", t.unavailable.empty() || t.measured ? json(t.base_load_qps) : json(nullptr)},
          {"points", t.points},
          {"mean_abs_relative_error", Opt(t.mean_abs_relative_error)},
          {"max_abs_relative_error", Opt(t.max_abs_relative_error)},
          {"unavailable", t.unavailable.empty() ? json(nullptr) : json(t.unavailable)}};
}

json ModelComparisonJson(const ModelComparison& m) {
  json pts = json::array();
  for (const auto& p : m.points) {
    pts.push_back({{"qps", p.qps},
                   {"utilization", p.utilization},
                   {"in_range", p.in_range},
                   {"delay_us", p.delay_s * 1e6},
                   {"measured_mean_us", p.measured_mean_s * 1e6},
                   {"measured_tail_us", p.measured_p_s * 1e6},
                   {"predicted_mean_us", p.predicted_mean_s ? json(*p.predicted_mean_s * 1e6) : json(nullptr)},
                   {"predicted_tail_us", p.predicted_p_s ? json(*p.predicted_p_s * 1e6) : json(nullptr)},
                   {"mean_relative_error", Opt(p.mean_relative_error)},
                   {"tail_relative_error", Opt(p.p_relative_error)}});
  }
  json variants = json::array();
  for (const auto& v : m.variants) {
    variants.push_back({{"name", v.name},
                        {"scv", Opt(v.scv)},
                        {"scv_method", v.scv_method},
                        {"mean_abs_relative_error", Opt(v.mean_abs_relative_error)},
                        {"max_abs_relative_error", Opt(v.max_abs_relative_error)},
                        {"unavailable", v.unavailable.empty() ? json(nullptr) : json(v.unavailable)}});
  }
  json j = {{"queue", m.queue},
          {"servers", m.model.servers},
          {"service_us", m.demand_s * 1e6},
          {"scv", m.model.scv},
          {"scv_method", m.scv_method},
          {"s0_us", m.s0_s * 1e6},
          {"s0_method", m.s0_method},
          {"delay_us", m.delay_s * 1e6},
          {"delay_method", m.delay_method},
          {"messages_per_op", m.messages_per_op},
          {"overhead_us", m.overhead_s * 1e6},
          {"latency_us", m.latency_s * 1e6},
          {"saturation_qps", m.saturation_qps},
          {"percentile", m.percentile},
          {"range", {{"low", m.range_low}, {"high", m.range_high}, {"source", m.range_source}}},
          {"variants", variants},
          {"regression_mean", TableJson(m.mean)},
          {"regression_tail", TableJson(m.tail)},
          {"points", pts}};
  // Only where a CPU quota allows less than the servers' CPUs: the capacity the queue had, and
  // its time per request at that capacity (service_us stays the CPU time per request).
  if (m.capacity_cpus < m.model.servers - 1e-9) {
    j["capacity_cpus"] = m.capacity_cpus;
    j["queue_service_us"] = m.model.service_s * 1e6;
  }
  return j;
}

json PredictedJson(const PredictedSensitivity& p) {
  json settings = json::array();
  for (const auto& s : p.settings) {
    settings.push_back({{"value", s.value},
                        {"group", s.group_key},
                        {"amount_s", s.amount_s},
                        {"predicted_base_us", Opt(s.predicted_base_us)},
                        {"measured_base_us", Opt(s.measured_base_us)},
                        {"predicted_slope_us_per_qps", Opt(s.predicted_slope_us_per_qps)},
                        {"measured_slope_us_per_qps", Opt(s.measured_slope_us_per_qps)},
                        {"predicted_saturation_qps", Opt(s.predicted_saturation_qps)},
                        {"measured_saturation_qps", Opt(s.measured_saturation_qps)},
                        {"predicted_note", s.predicted_note},
                        {"measured_note", s.measured_note}});
  }
  return {{"knob", p.knob},
          {"parameter", p.parameter},
          {"scenario", p.scenario},
          {"reference", p.reference},
          {"base_load_qps", p.base_load_qps},
          {"rule", p.rule},
          {"settings", settings},
          {"unavailable", p.unavailable.empty() ? json(nullptr) : json(p.unavailable)}};
}

// A qps experiment's JSON is what it was before sweeps had an axis (no key added, loads named
// target_qps); any other axis says which, and names its points' loads by it.
std::string TargetKey(LoadAxis axis) { return "target_" + std::string(LoadAxisName(axis)); }

}  // namespace

nlohmann::json ToJson(const ExperimentAnalysis& a) {
  json j;
  j["experiment"] = a.experiment;
  j["workload"] = a.workload;
  j["percentile"] = a.percentile;
  j["confidence"] = a.confidence;
  if (a.load_axis != LoadAxis::kQps) j["load_axis"] = std::string(LoadAxisName(a.load_axis));
  // Only when some scenario was skipped: a database without any reads as it always did.
  if (!a.skipped_scenarios.empty()) {
    json skipped = json::array();
    for (const auto& [scenario, why] : a.skipped_scenarios) skipped.push_back({{"scenario", scenario}, {"reason", why}});
    j["skipped_scenarios"] = skipped;
  }
  for (const AnalysisStep& step : AnalysisSteps()) step.to_json(a, j);
  j["warnings"] = a.warnings;
  return j;
}

namespace steps {

void QosJson(const ExperimentAnalysis& a, json& j) {
  j["qos"] = {{"target_us", Opt(a.qos.target_us)},
              {"method", a.qos.method},
              {"service_time_us", Opt(a.qos.service_time_us)},
              {"service_method", a.qos.service_method},
              {"reference", a.qos.reference},
              {"unavailable", a.qos.unavailable.empty() ? json(nullptr) : json(a.qos.unavailable)},
              {"note", a.qos.note}};
  if (a.qos.seed_target_us) j["qos"]["seed_target_us"] = *a.qos.seed_target_us;
  if (a.qos.by_deadline_miss) {
    j["qos"]["by_deadline_miss"] = true;
    j["qos"]["max_deadline_miss_ratio"] = kSessionMaxDeadlineMiss;
  }
}

// Each group and its merged points; the capacity and model steps add their keys to each group.
void GroupsJson(const ExperimentAnalysis& a, json& j) {
  const std::string target_key = TargetKey(a.load_axis);
  json groups = json::array();
  for (const auto& g : a.groups) {
    json pts = json::array();
    for (const auto& p : g.points) {
      pts.push_back({{target_key, p.target_load},
                     {"achieved_qps", p.achieved_qps},
                     {"throughput_qps", p.throughput_qps},
                     {"repetitions", p.repetitions},
                     {"valid", p.valid},
                     {"failed", p.failed},
                     {"reasons", p.reasons},
                     {"repetitions_left_out", p.repetitions_left_out},
                     {"left_out_reasons", p.left_out_reasons},
                     {"timely_ratio", p.timely_ratio},
                     {"lateness_p50_us", Opt(p.lateness_p50_us)},
                     {"lateness_p99_us", Opt(p.lateness_p99_us)},
                     {"mean_us", p.mean_us},
                     {"p50_us", p.p50_us},
                     {"p95_us", p.p95_us},
                     {"p99_us", p.p99_us},
                     {"p999_us", p.p999_us},
                     {"tail_us", p.tail_us},
                     {"tail_low_us", Opt(p.tail_low_us)},
                     {"tail_high_us", Opt(p.tail_high_us)},
                     {"tail_ci_method", p.tail_ci_method},
                     {"meets_qos", p.meets_qos ? json(*p.meets_qos) : json(nullptr)},
                     {"service_us", Opt(p.service_us)},
                     {"service_method", p.service_method},
                     {"cpu_util", MetricJson(p.cpu_util)},
                     {"net_rx_bps", MetricJson(p.net_rx_bps)},
                     {"net_tx_bps", MetricJson(p.net_tx_bps)},
                     {"disk_bps", MetricJson(p.disk_bps)},
                     {"membw_bps", MetricJson(p.membw_bps)},
                     {"llc_bytes", MetricJson(p.llc_bytes)},
                     {"memory_bytes", MetricJson(p.memory_bytes)},
                     {"clients", p.clients}});
      // Recorded since the generator explains its lateness and can keep CPUs awake: absent
      // from points stored before (not empty, not zero: not measured).
      if (!p.late_shares.empty()) pts.back()["late_causes"] = p.late_shares;
      if (!p.keep_awake_cpus.empty()) pts.back()["keep_awake_cpus"] = p.keep_awake_cpus;
      if (!p.keep_awake_workload.empty()) pts.back()["keep_awake_workload"] = p.keep_awake_workload;
      if (!p.keep_awake_how.empty()) pts.back()["keep_awake_how"] = p.keep_awake_how;
      // Said since the monitor can estimate memory traffic from LLC misses: absent before.
      if (!p.membw_method.empty()) pts.back()["membw_method"] = p.membw_method;
      // Recorded since the generator reconnects (schema 7): absent from points stored before.
      if (p.reconnections) pts.back()["reconnections"] = *p.reconnections;
      // Only a point measured until known: how long, what ended it, its interval then.
      if (!p.until_decided.empty()) {
        pts.back()["measured_s"] = Opt(p.until_measured_s);
        pts.back()["until_decided"] = p.until_decided;
        pts.back()["until_interval"] = Opt(p.until_interval);
      }
      if (p.lost_requests) {
        pts.back()["lost_requests"] = *p.lost_requests;
        pts.back()["lost_reasons"] = p.lost_reasons;
      }
      if (p.session) {
        pts.back()["session"] = {{"sessions", p.session->sessions},
                                 {"chunk_play_ms", p.session->chunk_play_ms},
                                 {"chunks_requested", p.session->chunks_requested},
                                 {"chunks_completed", p.session->chunks_completed},
                                 {"deadline_miss_ratio", p.session->deadline_miss_ratio},
                                 {"throughput_bytes_per_s", p.session->throughput_bytes_per_s}};
      }
      // Only where a LogGP knob was set: other analyses print what they always printed.
      if (!p.network.is_null()) pts.back()["network"] = p.network;
      // Only where client nodes drove the load: each one's part, so the host that fell behind
      // is named.
      if (!p.agents.empty()) {
        json agents = json::array();
        for (const auto& ag : p.agents) {
          agents.push_back({{"name", ag.name},
                            {"measurement", ag.measurement},
                            {"target_qps", ag.target_qps},
                            {"achieved_qps", ag.achieved_qps},
                            {"timely_ratio", ag.timely_ratio},
                            {"lateness_p99_us", Opt(ag.lateness_p99_us)},
                            {"latency_p99_us", Opt(ag.latency_p99_us)},
                            {"valid", ag.valid ? json(*ag.valid) : json()},
                            {"failure", ag.failure},
                            {"invalid_reasons", ag.invalid_reasons},
                            {"clock", {{"offset_us", Opt(ag.clock_offset_us)},
                                       {"rtt_us", Opt(ag.clock_rtt_us)},
                                       {"samples", ag.clock_samples}}}});
        }
        pts.back()["agents"] = agents;
      }
    }
    groups.push_back({{"key", g.key},
                      {"scenario", g.scenario},
                      {"threads", g.threads},
                      {"physical_cores", g.physical_cores},
                      {"partition", PartitionJson(g.partition)},
                      {"repetitions", g.repetitions},
                      {"failed", g.failed},
                      {"failure", g.failure},
                      {"valid_points", g.valid_points},
                      {"invalid_points", g.invalid_points},
                      {"qps_range", {g.min_qps, g.max_qps}},
                      {"clients_range", {g.min_clients, g.max_clients}},
                      {"points", pts}});
    // Only for a range the sweep chose itself (qps = "auto"): other databases read as before.
    if (!g.load_range_note.empty()) groups.back()["load_range_chosen_by_probes"] = g.load_range_note;
  }
  j["groups"] = groups;
}

void CapacityJson(const ExperimentAnalysis& a, json& j) {
  for (size_t i = 0; i < a.groups.size(); ++i) {
    const GroupAnalysis& g = a.groups[i];
    json& gj = j["groups"][i];
    gj["capacity"] = {{"qps", Opt(g.capacity.qps)},
                      {"lower_bound", g.capacity.lower_bound},
                      {"upper_bound", Opt(g.capacity.upper_bound)},
                      {"low", Opt(g.capacity.low)},
                      {"high", Opt(g.capacity.high)},
                      {"last_pass_qps", Opt(g.capacity.last_pass_qps)},
                      {"first_fail_qps", Opt(g.capacity.first_fail_qps)},
                      {"status", g.capacity.status},
                      {"interval_method", g.capacity.interval_method}};
    gj["qps_at_20"] = Opt(g.qps_at_20);
    gj["qps_at_20_note"] = g.qps_at_20_note;
    gj["qps_at_50"] = Opt(g.qps_at_50);
    gj["qps_at_50_note"] = g.qps_at_50_note;
    gj["saturation_qps"] = Opt(g.saturation_qps);
    gj["saturation_note"] = g.saturation_note;
  }
}

void ModelJson(const ExperimentAnalysis& a, json& j) {
  for (size_t i = 0; i < a.groups.size(); ++i) {
    const GroupAnalysis& g = a.groups[i];
    j["groups"][i]["model"] = g.model ? ModelComparisonJson(*g.model) : json(nullptr);
    j["groups"][i]["model_unavailable"] = g.model_unavailable;
  }
}

void ScalingJson(const ExperimentAnalysis& a, json& j) {
  j["scaling"] = {{"capacity_2st_over_1st", RatioJson(a.scaling.capacity_2st)},
                  {"capacity_2smt_over_1st", RatioJson(a.scaling.capacity_2smt)},
                  {"qps_at_20_2st_over_1st", RatioJson(a.scaling.qps20_2st)},
                  {"qps_at_20_2smt_over_1st", RatioJson(a.scaling.qps20_2smt)},
                  {"qps_at_50_2st_over_1st", RatioJson(a.scaling.qps50_2st)},
                  {"qps_at_50_2smt_over_1st", RatioJson(a.scaling.qps50_2smt)}};
}

void CategoryJson(const ExperimentAnalysis& a, json& j) {
  json ev = json::array();
  for (const auto& e : a.category.evidence) {
    ev.push_back({{"category", e.category},
                  {"name", e.name},
                  {"value", Opt(e.value)},
                  {"unit", e.unit},
                  {"rule", e.rule},
                  {"holds", e.holds},
                  {"note", e.note}});
  }
  j["category"] = {{"name", a.category.name},
                   {"explanation", a.category.explanation},
                   {"evidence", ev}};
}

void SensitivityJson(const ExperimentAnalysis& a, json& j) {
  json sens = json::array();
  for (const auto& s : a.sensitivity) {
    json pts = json::array();
    for (const auto& p : s.points) {
      pts.push_back({{"value", p.value},
                     {"group", p.group_key},
                     {"capacity_qps", Opt(p.capacity_qps)},
                     {"lower_bound", p.lower_bound},
                     {"relative_change", ToJson(p.relative_change)},
                     {"base_mean_us", Opt(p.base_mean_us)},
                     {"base_note", p.base_note},
                     {"saturation_qps", Opt(p.saturation_qps)}});
    }
    sens.push_back({{"resource", s.resource},
                    {"scenario", s.scenario},
                    {"status", s.status},
                    {"explanation", s.explanation},
                    {"base_load", s.base_load > 0 ? json(s.base_load) : json(nullptr)},
                    {"points", pts}});
  }
  j["sensitivity"] = sens;
}

void PredictedSensitivityJson(const ExperimentAnalysis& a, json& j) {
  json predicted = json::array();
  for (const auto& p : a.predicted_sensitivity) predicted.push_back(PredictedJson(p));
  j["predicted_sensitivity"] = predicted;
}

void RecommendationJson(const ExperimentAnalysis& a, json& j) {
  if (a.recommendation) {
    const auto& r = *a.recommendation;
    j["recommendation"] = {{"target_qps", r.target_qps},
                           {"group", r.group_key ? json(*r.group_key) : json(nullptr)},
                           {"explanation", r.explanation},
                           {"candidates", r.candidates}};
  } else {
    j["recommendation"] = nullptr;
  }
}

void ColocationJson(const ExperimentAnalysis& a, json& j) {
  if (!a.colocation.empty() || !a.colocation_note.empty()) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    auto optb = [](const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : a.colocation) {
      nlohmann::json levels = nlohmann::json::array();
      for (const auto& l : g.levels) {
        levels.push_back({{"load", l.load},
                          {"alone_tail_us", opt(l.alone_tail_us)},
                          {"together_tail_us", opt(l.together_tail_us)},
                          {"alone_p99_us", opt(l.alone_p99_us)},
                          {"together_p99_us", opt(l.together_p99_us)},
                          {"alone_valid", l.alone_valid},
                          {"together_valid", l.together_valid},
                          {"alone_meets_qos", optb(l.alone_meets)},
                          {"together_meets_qos", optb(l.together_meets)},
                          {"together_invalid_reasons", l.together_reasons},
                          {"together_from_send_tail_us", opt(l.together_from_send_tail_us)},
                          {"together_certain_miss", l.together_certain_miss},
                          {"slack", opt(l.slack)},
                          {"emu", ToJson(l.emu)},
                          {"corunner_throughput", l.corunner_throughput}});
      }
      nlohmann::json cs = nlohmann::json::array();
      for (const auto& c : g.corunners) {
        cs.push_back({{"name", c.name},
                      {"sched", c.sched},
                      {"cpus", c.cpus},
                      {"measure", ToString(c.unit)},
                      {"alone", opt(c.alone)},
                      {"together", opt(c.together)},
                      {"ratio", opt(c.ratio)},
                      {"alone_windows", c.alone_windows},
                      {"note", c.note}});
        if (c.loaded) {
          cs.back()["load"] = {{"qps", c.load_qps},
                               {"alone_p95_us", opt(c.alone_p95_us)},
                               {"together_p95_us", opt(c.together_p95_us)},
                               {"together_windows", c.together_windows},
                               {"together_valid_windows", c.together_valid_windows},
                               {"together_invalid_reasons", c.together_invalid_reasons}};
        }
      }
      groups.push_back({{"set", g.set},
                        {"group", g.group_key},
                        {"alone", {{"capacity", opt(g.alone_capacity)}, {"low", opt(g.alone_low)},
                                   {"high", opt(g.alone_high)}, {"lower_bound", g.alone_lower_bound},
                                   {"upper_bound", opt(g.alone_upper_bound)},
                                   {"status", g.alone_status}}},
                        {"together", {{"capacity", opt(g.together_capacity)}, {"low", opt(g.together_low)},
                                      {"high", opt(g.together_high)}, {"lower_bound", g.together_lower_bound},
                                      {"upper_bound", opt(g.together_upper_bound)},
                                      {"status", g.together_status}}},
                        {"capacity_ratio", ToJson(g.capacity_ratio)},
                        {"verdict", g.verdict},
                        {"unavailable", g.unavailable},
                        {"levels", levels},
                        {"corunners", cs}});
    }
    j["colocation"] = {{"note", a.colocation_note}, {"groups", groups}};
  }
}

// The sensitivity profile; the pressure and predictions steps add their keys to its object, so
// all three exist only with a profile.
void InterferenceJson(const ExperimentAnalysis& a, json& j) {
  if (!a.interference.empty()) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json profiles = nlohmann::json::array();
    for (const auto& p : a.interference) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& q : p.points) {
        points.push_back({{"intensity", q.intensity},
                          {"set", q.set},
                          {"capacity", opt(q.capacity)},
                          {"low", opt(q.low)},
                          {"high", opt(q.high)},
                          {"lower_bound", q.lower_bound},
                          {"upper_bound", opt(q.upper_bound)},
                          {"tail_us", opt(q.tail_us)},
                          {"meets_qos", q.meets ? nlohmann::json(*q.meets) : nlohmann::json()},
                          {"note", q.note}});
      }
      profiles.push_back({{"source", p.source},
                          {"group", p.group_key},
                          {"load", opt(p.load)},
                          {"load_how", p.load_how},
                          {"points", points},
                          {"tolerated", opt(p.tolerated)},
                          {"tolerates_all", p.tolerates_all},
                          {"tolerated_at_least", p.at_least},
                          {"tolerated_note", p.tolerated_note},
                          {"capacity_ratio_at_max", ToJson(p.capacity_ratio_at_max)},
                          {"verdict", p.verdict},
                          {"evidence", p.evidence}});
    }
    j["interference"] = {{"capacity_drop_threshold", kInterferenceCapacityDrop}, {"profiles", profiles}};
  }
}

void PressureJson(const ExperimentAnalysis& a, json& j) {
  if (!a.interference.empty()) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json pressure = nlohmann::json::array();
    for (const auto& p : a.pressure) {
      nlohmann::json scores = nlohmann::json::array();
      for (const auto& sc : p.scores) {
        scores.push_back({{"source", sc.source}, {"intensity", opt(sc.intensity)}, {"at_least", sc.at_least},
                          {"note", sc.note}, {"capacity_intensity", opt(sc.capacity_intensity)},
                          {"capacity_at_least", sc.capacity_at_least}, {"capacity_note", sc.capacity_note}});
      }
      pressure.push_back({{"set", p.set}, {"group", p.group_key}, {"scores", scores}});
    }
    j["interference"]["pressure"] = pressure;
  }
}

void PredictionsJson(const ExperimentAnalysis& a, json& j) {
  if (!a.interference.empty()) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json predictions = nlohmann::json::array();
    for (const auto& p : a.predictions) {
      auto optb = [](const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
      predictions.push_back({{"set", p.set},
                             {"group", p.group_key},
                             {"source", p.source},
                             {"score", opt(p.score)},
                             {"score_at_least", p.score_at_least},
                             {"capacity_score", opt(p.capacity_score)},
                             {"capacity_score_at_least", p.capacity_score_at_least},
                             {"load", opt(p.load)},
                             {"predicted_tail_us", ToJson(p.predicted_tail_us)},
                             {"predicted_meets_qos", optb(p.predicted_meets)},
                             {"predicted_capacity_ratio", ToJson(p.predicted_capacity_ratio)},
                             {"measured_tail_us", opt(p.measured_tail_us)},
                             {"measured_meets_qos", optb(p.measured_meets)},
                             {"measured_capacity_ratio", ToJson(p.measured_capacity_ratio)},
                             {"capacity_error_pp", ToJson(p.capacity_error_pp)},
                             {"note", p.note}});
    }
    j["interference"]["reporter"] = a.reporter;
    j["interference"]["reporter_note"] = a.reporter_note;
    j["interference"]["predictions"] = predictions;
    const PredictionCheck& c = a.prediction_check;
    // Only where predictions were made: without a reporter there is nothing to check.
    j["interference"]["prediction_check"] = a.predictions.empty() ? json() : json{{"measured_pairs", c.measured},
                                             {"judged", c.judged},
                                             {"left_out", c.left_out},
                                             {"mean_abs_error_pp", opt(c.mean_abs_error_pp)},
                                             {"naive_share", opt(c.naive_share)},
                                             {"naive_mean_abs_error_pp", opt(c.naive_mean_abs_error_pp)},
                                             {"safe_judged", c.safe_judged},
                                             {"safe_agree", c.safe_agree},
                                             {"note", c.note},
                                             {"tail_judged", c.tail_judged},
                                             {"tail_mean_abs_error_pct", opt(c.tail_mean_abs_error_pct)},
                                             {"naive_tail_us", opt(c.naive_tail_us)},
                                             {"naive_tail_mean_abs_error_pct", opt(c.naive_tail_mean_abs_error_pct)},
                                             {"tail_note", c.tail_note}};
  }
}

void MatrixJson(const ExperimentAnalysis& a, json& j) {
  if (!a.matrix.sets.empty()) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    auto optb = [](const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    const ColocationMatrix& m = a.matrix;
    nlohmann::json cells = nlohmann::json::array(), heat = nlohmann::json::array();
    for (const auto& c : m.cells) {
      cells.push_back({{"subject", c.subject},
                       {"set", c.set},
                       {"load", opt(c.load)},
                       {"predicted_capacity_ratio", ToJson(c.predicted_ratio)},
                       {"predicted_meets_qos", optb(c.predicted_meets)},
                       {"measured_capacity_ratio", ToJson(c.measured_ratio)},
                       {"measured_meets_qos", optb(c.measured_meets)},
                       {"note", c.note}});
    }
    for (const auto& h : m.heat) {
      nlohmann::json values = nlohmann::json::array();
      for (size_t i = 0; i < h.values.size(); ++i) {
        values.push_back({{"source", m.sources[i]}, {"intensity", opt(h.values[i])}, {"at_least", h.at_least[i]}});
      }
      heat.push_back({{"workload", h.workload}, {"role", h.role}, {"by", h.by}, {"values", values}});
    }
    j["matrix"] = {{"group", m.group_key}, {"subjects", m.subjects}, {"sets", m.sets}, {"sources", m.sources},
                   {"cells", cells},       {"heat", heat},           {"note", m.note}};
  }
}

void BatchJson(const ExperimentAnalysis& a, json& j) {
  if (a.batch) j["batch"] = a.batch->ToJson();
}

// Only where runs were pooled: an analysis of one run has no such key.
void ManagerJson(const ExperimentAnalysis& a, json& j) {
  const ManagerComparison& c = a.manager;
  if (c.modes.empty() && c.note.empty()) return;
  json modes = json::array();
  for (const ModeFigures& m : c.modes) {
    modes.push_back({{"mode", m.mode},
                     {"managed", m.managed},
                     {"runs", m.runs},
                     {"windows", m.windows},
                     {"valid_windows", m.valid},
                     {"met_windows", m.met},
                     {"met_share", Opt(m.met_share)},
                     {"met_note", m.met_note},
                     {"neighbour_cpu_s_per_s", Opt(m.neighbour_throughput)},
                     {"neighbour_note", m.neighbour_note},
                     {"emu", Opt(m.emu)},
                     {"emu_note", m.emu_note},
                     {"settling_s", Opt(m.settling_s)},
                     {"steps", m.steps},
                     {"unsettled_steps", m.unsettled},
                     {"actions", m.actions},
                     {"failed_actions", m.failed_actions},
                     {"pareto", m.pareto},
                     {"dominated_by", m.dominated_by}});
  }
  j["manager"] = {{"modes", modes}, {"verdict", c.verdict}, {"note", c.note}};
}

void AcrossRunsJson(const ExperimentAnalysis& a, json& j) {
  if (a.across_runs.experiments.empty()) return;
  json figures = json::array();
  for (const auto& f : a.across_runs.figures) {
    json per_run = json::array();
    for (const auto& b : f.per_run) per_run.push_back(ToJson(b));
    figures.push_back({{"figure", f.figure},
                       {"group", f.group},
                       {"per_run", per_run},
                       {"pooled", ToJson(f.pooled)},
                       {"low", Opt(f.low)},
                       {"high", Opt(f.high)},
                       {"spread", Opt(f.spread)},
                       {"note", f.note}});
  }
  j["across_runs"] = {{"experiments", a.across_runs.experiments}, {"figures", figures}};
}

}  // namespace steps
}  // namespace ream::analysis
