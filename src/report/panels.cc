#include "report/panels.h"

#include <algorithm>

#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {

using analysis::ExperimentAnalysis;
using analysis::GroupAnalysis;
using analysis::Metric;
using nlohmann::json;

namespace {

json Enc(const std::string& field, const std::string& type, const std::string& title) {
  return {{"field", field}, {"type", type}, {"title", title}};
}

}  // namespace

json LineSpec(const std::string& title, const json& rows, const std::string& y_title, bool log_y,
              LoadAxis axis, const std::string& dash_field, std::optional<double> rule_y,
              const std::string& rule_label) {
  const std::string unit(LoadAxisUnit(axis));
  json x = Enc("qps", "quantitative", "offered load (" + unit + ")");
  x["axis"] = {{"format", "~s"}};  // 20k, 100k: long rates would overlap on a 300-px axis
  json y = Enc("y", "quantitative", y_title);
  if (log_y) {
    y["scale"] = {{"type", "log"}};
  } else {
    // A metric measured as exactly zero everywhere (no disk I/O, say) still gets a readable
    // axis, 0 to 1, instead of a collapsed one labelled "0.000000".
    double top = 0;
    for (const auto& r : rows) {
      if (r.contains("y") && r["y"].is_number()) top = std::max(top, r["y"].get<double>());
    }
    if (top <= 0) y["scale"] = {{"domain", {0, 1}}};
  }
  json color = Enc("series", "nominal", "scenario / partition");
  json line_enc = {{"x", x}, {"y", y}, {"color", color}, {"order", {{"field", "qps"}}}};
  if (!dash_field.empty()) line_enc["strokeDash"] = Enc(dash_field, "nominal", dash_field);
  json point_enc = {
      {"x", x},
      {"y", y},
      {"color", color},
      {"shape",
       {{"field", "validity"},
        {"type", "nominal"},
        {"title", "point"},
        {"scale", {{"domain", {"valid", "invalid"}}, {"range", {"circle", "cross"}}}}}},
      {"tooltip",
       {Enc("series", "nominal", "scenario / partition"), Enc("qps", "quantitative", unit),
        Enc("y", "quantitative", y_title), Enc("validity", "nominal", "point"),
        Enc("why", "nominal", "why invalid")}}};
  json layers = json::array();
  layers.push_back({{"mark", {{"type", "line"}, {"clip", true}}}, {"encoding", line_enc}});
  layers.push_back({{"mark", {{"type", "point"}, {"filled", true}, {"size", 45}, {"clip", true}}},
                    {"encoding", point_enc}});
  if (rule_y) {
    layers.push_back({{"name", "lqos"},
                      {"data", {{"values", {{{"y", *rule_y}, {"label", rule_label}}}}}},
                      {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#333"}}},
                      {"encoding",
                       {{"y", {{"field", "y"}, {"type", "quantitative"}}},
                        {"tooltip", {Enc("label", "nominal", "target")}}}}});
  }
  return {
      {"title", title},
      {"width", 300},
      {"height", 200},
      {"data", {{"values", rows}}},
      {"layer", layers},
      {"config", {{"legend", {{"orient", "bottom"}, {"direction", "vertical"}, {"columns", 2}}}}}};
}

namespace {

// The reason the first point gives for a metric's absence.
std::string Reason(const std::vector<const GroupAnalysis*>& groups,
                   const Metric analysis::PointAnalysis::*m) {
  for (const auto* g : groups) {
    for (const auto& p : g->points) {
      const Metric& v = p.*m;
      if (!v.has() && !v.unavailable.empty()) return v.unavailable;
    }
  }
  return "not measured";
}

json PointRow(const GroupAnalysis& g, const analysis::PointAnalysis& p, double y) {
  std::string why;
  for (const auto& r : p.reasons) why += (why.empty() ? "" : "; ") + r;
  return {{"series", g.key},
          {"qps", p.target_load},
          {"y", y},
          {"validity", p.valid ? "valid" : "invalid"},
          {"why", why}};
}

}  // namespace

Panel MetricPanel(const std::string& id, const std::string& title, const std::string& y_title,
                  const std::vector<const GroupAnalysis*>& groups,
                  const Metric analysis::PointAnalysis::*m, double scale, LoadAxis axis) {
  Panel panel{id, title, nullptr, "", 0};
  json rows = json::array();
  for (const auto* g : groups) {
    for (const auto& p : g->points) {
      const Metric& v = p.*m;
      if (v.has() && !p.failed) rows.push_back(PointRow(*g, p, *v.value * scale));
    }
  }
  if (rows.empty()) {
    panel.unavailable = Reason(groups, m);
    return panel;
  }
  panel.rows = rows.size();
  panel.spec = LineSpec(title, rows, y_title, false, axis);
  return panel;
}

LatencyUnit ChooseUnit(const ExperimentAnalysis& a) {
  double top = a.qos.target_us.value_or(0);
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      if (p.valid) top = std::max(top, p.tail_us);
    }
  }
  if (top >= 5e6) return {1e-6, "s"};
  if (top >= 5e3) return {1e-3, "ms"};
  return {1, "µs"};
}

Panel TailPanel(const ExperimentAnalysis& a, const std::vector<const GroupAnalysis*>& groups,
                const std::string& id, const std::string& title, LatencyUnit unit) {
  Panel panel{id, title, nullptr, "", 0};
  json rows = json::array();
  for (const auto* g : groups) {
    for (const auto& p : g->points) {
      if (!p.failed && p.tail_us > 0) rows.push_back(PointRow(*g, p, p.tail_us * unit.per_us));
    }
  }
  if (rows.empty()) {
    panel.unavailable = "no point has a latency";
    return panel;
  }
  panel.rows = rows.size();
  std::optional<double> rule;
  if (a.qos.target_us) rule = *a.qos.target_us * unit.per_us;
  std::string pct = "p" + FormatNumber(a.percentile);
  if (a.qos.by_deadline_miss) {
    panel.spec = LineSpec(title, rows, pct + " chunk transfer + response (" + unit.name + ", log)", true, a.load_axis,
                          "", rule, "deadline " + FormatNumber(a.qos.target_us.value_or(0) / 1e3) + " ms");
    return panel;
  }
  panel.spec = LineSpec(title, rows, pct + " latency (" + unit.name + ", log)", true, a.load_axis,
                        "", rule, "LQoS " + FormatNumber(a.qos.target_us.value_or(0)) + " µs");
  return panel;
}

Panel MeanPanel(const ExperimentAnalysis& a, const std::vector<const GroupAnalysis*>& groups,
                const std::string& id, const std::string& title, LatencyUnit unit) {
  Panel panel{id, title, nullptr, "", 0};
  json rows = json::array();
  for (const auto* g : groups) {
    for (const auto& p : g->points) {
      if (!p.failed && p.mean_us > 0) rows.push_back(PointRow(*g, p, p.mean_us * unit.per_us));
    }
  }
  if (rows.empty()) {
    panel.unavailable = "no point has a latency";
    return panel;
  }
  panel.rows = rows.size();
  panel.spec = LineSpec(title, rows, std::string("mean response time (") + unit.name + ", log)", true, a.load_axis);
  return panel;
}

Panel NetworkPanel(const std::vector<const GroupAnalysis*>& groups, const std::string& id,
                   LoadAxis axis) {
  Panel panel{id, "(c) network bandwidth", nullptr, "", 0};
  json rows = json::array();
  for (const auto* g : groups) {
    for (const auto& p : g->points) {
      if (p.failed) continue;
      if (p.net_rx_bps.has()) {
        json r = PointRow(*g, p, *p.net_rx_bps.value / 1e6);
        r["direction"] = "rx";
        rows.push_back(r);
      }
      if (p.net_tx_bps.has()) {
        json r = PointRow(*g, p, *p.net_tx_bps.value / 1e6);
        r["direction"] = "tx";
        rows.push_back(r);
      }
    }
  }
  if (rows.empty()) {
    panel.unavailable = Reason(groups, &analysis::PointAnalysis::net_tx_bps);
    return panel;
  }
  panel.rows = rows.size();
  // One line per series and direction: the detail channel keeps rx and tx apart.
  json spec = LineSpec(panel.title, rows, "MB/s (rx solid, tx dashed)", false, axis, "direction");
  spec["layer"][1]["encoding"]["detail"] = {{"field", "direction"}};
  panel.spec = spec;
  return panel;
}

Panel ModelPanel(const GroupAnalysis& g, const std::string& id, const std::string& pct,
                 LatencyUnit unit) {
  const auto& m = *g.model;
  json rows = json::array();
  auto add = [&](const std::string& series, const analysis::ModelPoint& p, double y_s) {
    rows.push_back({{"series", series},
                    {"qps", p.qps},
                    {"y", y_s * 1e6 * unit.per_us},
                    {"validity", p.in_range ? "valid" : "invalid"},
                    {"why", p.in_range ? "" : "outside the operating range"}});
  };
  for (const auto& p : m.points) {
    add("measured mean", p, p.measured_mean_s);
    if (p.predicted_mean_s) add("model mean", p, *p.predicted_mean_s);
    add("measured " + pct, p, p.measured_p_s);
    if (p.predicted_p_s) add("model " + pct, p, *p.predicted_p_s);
  }
  Panel panel{id, "mean and " + pct + ", measured vs model — " + g.key, nullptr, "", rows.size()};
  // The model is one of rates: its points are throughputs, whatever the sweep's axis.
  panel.spec = LineSpec(panel.title, rows, std::string("response time (") + unit.name + "); crosses: outside the range",
                        false, LoadAxis::kQps);
  return panel;
}

std::string PanelHtml(const Panel& p, ChartSpecs* specs) {
  if (!p.spec.is_null()) {
    specs->push_back({p.id, p.spec});
    return "<div class=\"panel\"><div class=\"chart\" id=\"" + Esc(p.id) + "\" data-chart=\"" +
           Esc(p.id) + "\" data-rows=\"" + std::to_string(p.rows) + "\"></div></div>\n";
  }
  return "<div class=\"panel unavailable\" data-chart-unavailable=\"" + Esc(p.id) + "\"><h4>" +
         Esc(p.title) + "</h4><p>Not measured on this host: " + Esc(p.unavailable) +
         ". Nothing is drawn rather than a zero.</p></div>\n";
}

}  // namespace ream::report
