// `ream report`: one self-contained HTML page that opens offline. Vega, Vega-Lite and
// Vega-Embed are inlined from report-assets/node_modules, the data is inlined as JSON, and
// every chart is a Vega-Lite spec built here: per workload the first seed's six panels
// against QPS (one line per scenario), the partition sensitivity plots, the queueing model
// against measurement, and the seed's Tables 1 and 2. Figures carry data-metric and
// data-value attributes (the exact JSON number of `ream analyze --json`) so tests can find
// them.
#include <cmath>
#include <strings.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "report/reporter.h"

namespace ream::report {
namespace {

using analysis::ExperimentAnalysis;
using analysis::GroupAnalysis;
using analysis::Metric;
using nlohmann::json;

std::string Esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

// JSON safe inside <script>: '<' only occurs inside strings, where \u003c means the same.
std::string ScriptJson(const json& j) {
  std::string s = j.dump();
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '<') {
      o += "\\u003c";
    } else {
      o += c;
    }
  }
  return o;
}

// A library inlined in <script>: its source map comment is dropped (nothing may be fetched)
// and any "</script" is broken so it cannot end the element.
std::string InlineScript(std::string js) {
  for (const char* marker : {"//# sourceMappingURL=", "//@ sourceMappingURL="}) {
    size_t pos;
    while ((pos = js.find(marker)) != std::string::npos) {
      size_t end = js.find('\n', pos);
      js.erase(pos, end == std::string::npos ? std::string::npos : end - pos);
    }
  }
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js[i] == '<' && i + 8 <= js.size() && js[i + 1] == '/' &&
        strncasecmp(js.c_str() + i + 2, "script", 6) == 0) {
      out += "<\\/";
      ++i;  // skip the '/'
      continue;
    }
    out += js[i];
  }
  return out;
}

// The exact number `ream analyze --json` prints for this value.
std::string JsonNumber(double v) { return json(v).dump(); }

std::string Fig(const std::string& metric, const std::optional<double>& v,
                   const std::string& group = "", const std::string& prefix = "") {
  std::string attrs = " data-metric=\"" + Esc(metric) + "\"";
  if (!group.empty()) attrs += " data-group=\"" + Esc(group) + "\"";
  if (!v) return "<span" + attrs + " data-value=\"null\">—</span>";
  return "<span" + attrs + " data-value=\"" + JsonNumber(*v) + "\">" + Esc(prefix) +
         FormatNumber(*v) + "</span>";
}

struct Panel {
  std::string id;
  std::string title;
  json spec;  // null when unavailable
  std::string unavailable;
  size_t rows = 0;
};

json Enc(const std::string& field, const std::string& type, const std::string& title) {
  return {{"field", field}, {"type", type}, {"title", title}};
}

// Line + point layers of y against QPS, one line per series; invalid points are crosses.
json LineSpec(const std::string& title, const json& rows, const std::string& y_title,
              bool log_y, const std::string& dash_field = "",
              std::optional<double> rule_y = std::nullopt, const std::string& rule_label = "") {
  json x = Enc("qps", "quantitative", "offered load (QPS)");
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
  json point_enc = {{"x", x},
                    {"y", y},
                    {"color", color},
                    {"shape",
                     {{"field", "validity"},
                      {"type", "nominal"},
                      {"title", "point"},
                      {"scale", {{"domain", {"valid", "invalid"}}, {"range", {"circle", "cross"}}}}}},
                    {"tooltip",
                     {Enc("series", "nominal", "scenario / partition"),
                      Enc("qps", "quantitative", "QPS"), Enc("y", "quantitative", y_title),
                      Enc("validity", "nominal", "point"), Enc("why", "nominal", "why invalid")}}};
  json layers = json::array();
  layers.push_back({{"mark", {{"type", "line"}, {"clip", true}}}, {"encoding", line_enc}});
  layers.push_back(
      {{"mark", {{"type", "point"}, {"filled", true}, {"size", 45}, {"clip", true}}},
       {"encoding", point_enc}});
  if (rule_y) {
    layers.push_back({{"name", "lqos"},
                      {"data", {{"values", {{{"y", *rule_y}, {"label", rule_label}}}}}},
                      {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#333"}}},
                      {"encoding",
                       {{"y", {{"field", "y"}, {"type", "quantitative"}}},
                        {"tooltip", {Enc("label", "nominal", "target")}}}}});
  }
  return {{"title", title},
          {"width", 300},
          {"height", 200},
          {"data", {{"values", rows}}},
          {"layer", layers},
          {"config", {{"legend", {{"orient", "bottom"}, {"direction", "vertical"}, {"columns", 2}}}}}};
}

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

Panel MetricPanel(const std::string& id, const std::string& title, const std::string& y_title,
                  const std::vector<const GroupAnalysis*>& groups,
                  const Metric analysis::PointAnalysis::*m, double scale) {
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
  panel.spec = LineSpec(title, rows, y_title, false);
  return panel;
}

struct LatencyUnit {
  double per_us;  // multiply µs by this
  const char* name;
};
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
  panel.spec = LineSpec(title, rows, pct + " latency (" + unit.name + ", log)", true, "", rule,
                        "LQoS " + FormatNumber(a.qos.target_us.value_or(0)) + " µs");
  return panel;
}

Panel NetworkPanel(const std::vector<const GroupAnalysis*>& groups, const std::string& id) {
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
  json spec = LineSpec(panel.title, rows, "MB/s (rx solid, tx dashed)", false, "direction");
  spec["layer"][1]["encoding"]["detail"] = {{"field", "direction"}};
  panel.spec = spec;
  return panel;
}

std::string PanelHtml(const Panel& p, std::vector<std::pair<std::string, json>>* specs) {
  if (!p.spec.is_null()) {
    specs->push_back({p.id, p.spec});
    return "<div class=\"panel\"><div class=\"chart\" id=\"" + Esc(p.id) + "\" data-chart=\"" +
           Esc(p.id) + "\" data-rows=\"" + std::to_string(p.rows) + "\"></div></div>\n";
  }
  return "<div class=\"panel unavailable\" data-chart-unavailable=\"" + Esc(p.id) +
         "\"><h4>" + Esc(p.title) + "</h4><p>Not measured on this host: " + Esc(p.unavailable) +
         ". Nothing is drawn rather than a zero.</p></div>\n";
}

std::string RatioCell(const std::string& metric, const analysis::Ratio& r) {
  if (r.value) return "<td>" + Fig(metric, r.value, "", "") + "×</td>";
  return "<td data-metric=\"" + Esc(metric) + "\" data-value=\"null\">" + Esc(r.status) +
         "</td>";
}

const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin-top:20px}h4{margin:4px 0}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right}.muted{color:#666}.bad{color:#a00}
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:12px}
.panel{border:1px solid #eee;padding:6px;min-height:120px;overflow-x:auto}.unavailable{background:#fafafa;color:#555}
.headline{font-size:16px}.headline span[data-metric]{font-weight:600}
tr.invalid td{color:#a00}
)";

class HtmlReporter : public Reporter {
 public:
  explicit HtmlReporter(HtmlAssets assets) : assets_(std::move(assets)) {}
  std::string_view name() const override { return "html"; }

  Status Report(const ReportInput& in, std::ostream& os) override {
    const ExperimentAnalysis& a = *in.analysis;
    const analysis::ExperimentData& d = *in.data;
    std::vector<std::pair<std::string, json>> specs;
    std::ostringstream body;
    std::string pct = "p" + FormatNumber(a.percentile);
    LatencyUnit unit = ChooseUnit(a);

    body << "<h1>ream report — " << Esc(a.experiment) << "</h1>\n";
    body << "<p class=\"muted\">workload: " << Esc(d.workload.empty() ? "(unnamed)" : d.workload)
         << (d.protocol.empty() ? "" : " · protocol: " + Esc(d.protocol))
         << (d.created.empty() ? "" : " · created " + Esc(d.created))
         << (d.status.empty() ? "" : " · status: " + Esc(d.status)) << "</p>\n";

    // Headline: QoS target, category, recommendation.
    body << "<h2>QoS target</h2>\n<p class=\"headline\">LQoS = "
         << Fig("lqos_us", a.qos.target_us) << " µs";
    if (a.qos.target_us) {
      body << " — " << Esc(a.qos.method);
      if (a.qos.service_time_us) {
        body << "; mean service time at the reference utilization "
             << Fig("service_time_us", a.qos.service_time_us) << " µs ("
             << Esc(a.qos.service_method) << ")";
      }
    } else {
      body << " — unavailable: " << Esc(a.qos.unavailable);
    }
    body << "</p>\n";
    if (!a.qos.note.empty()) body << "<p class=\"muted\">" << Esc(a.qos.note) << "</p>\n";
    body << "<p>A point meets QoS when it is valid and its " << pct
         << " latency is at most LQoS. Invalid points (drawn as crosses) are shown but never "
            "used for capacity.</p>\n";

    // Table 1 and Table 2.
    body << "<h2>Table 1 — load range</h2>\n<table id=\"table1\"><tr><th>scenario / "
            "partition</th><th>QPS range</th><th>clients</th><th>points</th><th>valid</th>"
            "<th>invalid</th></tr>\n";
    for (const auto& g : a.groups) {
      if (g.failed) {
        body << "<tr><td>" << Esc(g.key) << "</td><td colspan=\"5\" class=\"bad\">not run: "
             << Esc(g.failure) << "</td></tr>\n";
        continue;
      }
      body << "<tr><td>" << Esc(g.key) << "</td><td>" << FormatNumber(g.min_qps) << "–"
           << FormatNumber(g.max_qps) << "</td><td>" << g.min_clients
           << (g.max_clients != g.min_clients ? "–" + std::to_string(g.max_clients) : "")
           << "</td><td class=\"num\">" << g.points.size() << "</td><td class=\"num\">"
           << g.valid_points << "</td><td class=\"num\">" << g.invalid_points << "</td></tr>\n";
    }
    body << "</table>\n";

    body << "<h2>Table 2 — QPS under QoS</h2>\n<table id=\"table2\"><tr><th>scenario / "
            "partition</th><th>LQoS (µs)</th><th>QPS under QoS</th><th>"
         << FormatNumber(a.confidence * 100)
         << " % interval</th><th>QPS at 20 % CPU</th><th>QPS at 50 % CPU</th><th>saturation "
            "QPS</th><th>how</th></tr>\n";
    for (const auto& g : a.groups) {
      if (g.failed) continue;
      const auto& c = g.capacity;
      std::string cap = c.qps ? Fig("capacity_qps", c.qps, g.key, c.lower_bound ? "≥ " : "")
                              : Fig("capacity_qps", std::nullopt, g.key);
      body << "<tr><td>" << Esc(g.key) << "</td><td class=\"num\">"
           << Fig("group_lqos_us", a.qos.target_us, g.key) << "</td><td class=\"num\">" << cap
           << "</td><td>[" << Fig("capacity_low_qps", c.low, g.key) << ", "
           << Fig("capacity_high_qps", c.high, g.key) << "]</td><td class=\"num\">"
           << Fig("qps_at_20", g.qps_at_20, g.key) << "</td><td class=\"num\">"
           << Fig("qps_at_50", g.qps_at_50, g.key) << "</td><td class=\"num\">"
           << Fig("saturation_qps", g.saturation_qps, g.key) << "</td><td class=\"muted\">"
           << Esc(c.status) << "; saturation " << Esc(g.saturation_note) << "</td></tr>\n";
    }
    body << "</table>\n";

    // Scaling.
    body << "<h2>Scaling with threads and SMT</h2>\n<table id=\"scaling\"><tr><th></th><th>QPS "
            "under QoS</th><th>QPS at 20 % CPU</th><th>QPS at 50 % CPU</th></tr>\n";
    body << "<tr><td>2-ST / 1-ST</td>" << RatioCell("scaling_capacity_2st", a.scaling.capacity_2st)
         << RatioCell("scaling_qps20_2st", a.scaling.qps20_2st)
         << RatioCell("scaling_qps50_2st", a.scaling.qps50_2st) << "</tr>\n";
    body << "<tr><td>2-SMT / 1-ST</td>"
         << RatioCell("scaling_capacity_2smt", a.scaling.capacity_2smt)
         << RatioCell("scaling_qps20_2smt", a.scaling.qps20_2smt)
         << RatioCell("scaling_qps50_2smt", a.scaling.qps50_2smt) << "</tr>\n</table>\n";

    // Category.
    body << "<h2>Category</h2>\n<p class=\"headline\" data-metric=\"category\" data-value=\""
         << Esc(a.category.name) << "\"><b>" << Esc(a.category.name) << "</b> — "
         << Esc(a.category.explanation) << "</p>\n";
    body << "<table id=\"evidence\"><tr><th>category</th><th>measured</th><th>value</th>"
            "<th>rule</th><th>holds</th></tr>\n";
    for (const auto& e : a.category.evidence) {
      body << "<tr><td>" << Esc(e.category) << "</td><td>" << Esc(e.name) << "</td><td>"
           << (e.value ? FormatNumber(*e.value) + " " + Esc(e.unit) : Esc(e.note)) << "</td><td>"
           << Esc(e.rule) << "</td><td>" << (e.holds ? "yes" : "no") << "</td></tr>\n";
    }
    body << "</table>\n";

    if (a.recommendation) {
      body << "<h2>Recommendation</h2>\n<p class=\"headline\">For "
           << Fig("recommendation_target_qps", a.recommendation->target_qps)
           << " QPS: <span data-metric=\"recommendation\" data-value=\""
           << Esc(a.recommendation->group_key.value_or("none")) << "\">"
           << Esc(a.recommendation->explanation) << "</span></p>\n";
    }

    // The six panels, one line per scenario (unlimited partitions; all groups when none is).
    std::vector<const GroupAnalysis*> base;
    for (const auto& g : a.groups) {
      if (!g.failed && g.partition.unlimited()) base.push_back(&g);
    }
    if (base.empty()) {
      for (const auto& g : a.groups) {
        if (!g.failed) base.push_back(&g);
      }
    }
    using PA = analysis::PointAnalysis;
    body << "<h2>Resource profile against load</h2>\n<div class=\"panels\">\n";
    body << PanelHtml(TailPanel(a, base, "tail", "(a) " + pct + " tail latency, LQoS dashed", unit),
                      &specs);
    body << PanelHtml(
        MetricPanel("cpu", "(b) CPU utilization", "% of allotted CPUs", base, &PA::cpu_util, 100),
        &specs);
    body << PanelHtml(NetworkPanel(base, "net"), &specs);
    body << PanelHtml(
        MetricPanel("disk", "(d) disk bandwidth", "MB/s (read + write)", base, &PA::disk_bps, 1e-6),
        &specs);
    body << PanelHtml(
        MetricPanel("membw", "(e) memory bandwidth", "MB/s", base, &PA::membw_bps, 1e-6), &specs);
    body << PanelHtml(
        MetricPanel("llc", "(f) LLC occupancy", "MB", base, &PA::llc_bytes, 1e-6), &specs);
    body << "</div>\n";

    // Sensitivity.
    body << "<h2>Sensitivity to resource partitions</h2>\n<table id=\"sensitivity\"><tr><th>"
            "resource</th><th>scenario</th><th>status</th><th>settings: QPS under QoS "
            "(change)</th><th>why</th></tr>\n";
    int sens_chart = 0;
    std::string sens_panels;
    for (const auto& s : a.sensitivity) {
      body << "<tr><td>" << Esc(s.resource) << "</td><td>" << Esc(s.scenario) << "</td><td>"
           << Esc(s.status) << "</td><td>";
      for (const auto& p : s.points) {
        body << Esc(p.value) << ": "
             << (p.capacity_qps ? (p.lower_bound ? "≥ " : "") + FormatNumber(*p.capacity_qps)
                                : std::string("—"));
        if (p.relative_change) {
          char b[32];
          std::snprintf(b, sizeof b, " (%+.1f %%)", *p.relative_change * 100);
          body << b;
        }
        body << "<br>";
      }
      body << "</td><td>" << Esc(s.explanation) << "</td></tr>\n";
      if (s.points.size() < 2) continue;
      std::vector<const GroupAnalysis*> gs;
      for (const auto& p : s.points) {
        if (const auto* g = a.Find(p.group_key)) gs.push_back(g);
      }
      Panel p = TailPanel(a, gs, "sens" + std::to_string(sens_chart++),
                          pct + " latency by " + s.resource + " (" + s.scenario + ")", unit);
      sens_panels += PanelHtml(p, &specs);
    }
    body << "</table>\n";
    if (!sens_panels.empty()) body << "<div class=\"panels\">\n" << sens_panels << "</div>\n";

    // Queueing model (second seed).
    body << "<h2>Queueing model against measurement</h2>\n<p>Delay center D plus an M/M/c CPU "
            "queue with per-operation demand S = S0 + k·o; X_sat = c / (S0 + k·o). Linear "
            "regressions of the "
         << pct << " response time against load, as the second seed's Table 5.1.</p>\n";
    body << "<table id=\"model\"><tr><th>scenario / partition</th><th>S0 (µs)</th><th>X_sat "
            "(QPS)</th><th>curve</th><th>slope (µs per QPS)</th><th>intercept (µs)</th><th>base "
            "(µs)</th><th>R²</th><th>max |relative error|</th></tr>\n";
    std::string model_panels;
    int model_chart = 0;
    for (const auto& g : a.groups) {
      if (g.failed) continue;
      if (!g.model) {
        body << "<tr><td>" << Esc(g.key) << "</td><td colspan=\"8\" class=\"muted\">unavailable: "
             << Esc(g.model_unavailable) << "</td></tr>\n";
        continue;
      }
      const auto& m = *g.model;
      auto reg = [&](const char* name, const std::optional<analysis::CurveRegression>& r) {
        std::string s = std::string("<td>") + name + "</td>";
        if (!r) return s + "<td colspan=\"4\">—</td>";
        return s + "<td class=\"num\">" + FormatNumber(r->fit.slope * 1e6) +
               "</td><td class=\"num\">" + FormatNumber(r->fit.intercept * 1e6) +
               "</td><td class=\"num\">" + FormatNumber(r->base_s * 1e6) +
               "</td><td class=\"num\">" + FormatNumber(r->fit.r2) + "</td>";
      };
      body << "<tr><td rowspan=\"2\">" << Esc(g.key) << "<br><span class=\"muted\">S0: "
           << Esc(m.s0_method) << "; D: " << Esc(m.delay_method) << "</span></td><td rowspan=\"2\" "
           << "class=\"num\">" << Fig("model_s0_us", m.s0_s * 1e6, g.key)
           << "</td><td rowspan=\"2\" class=\"num\">"
           << Fig("model_xsat_qps", m.saturation_qps, g.key) << "</td>"
           << reg("measured", m.measured_regression) << "<td rowspan=\"2\" class=\"num\">"
           << Fig("model_max_rel_error", m.max_abs_relative_error, g.key) << "</td></tr>\n<tr>"
           << reg("model", m.predicted_regression) << "</tr>\n";
      json rows = json::array();
      for (const auto& p : m.points) {
        rows.push_back({{"series", "measured"}, {"qps", p.qps}, {"y", p.measured_p_s * 1e6 * unit.per_us},
                        {"validity", "valid"}, {"why", ""}});
        if (p.predicted_p_s) {
          rows.push_back({{"series", "model"}, {"qps", p.qps},
                          {"y", *p.predicted_p_s * 1e6 * unit.per_us}, {"validity", "valid"},
                          {"why", ""}});
        }
      }
      Panel panel{"model" + std::to_string(model_chart++),
                  pct + " measured vs model — " + g.key, nullptr, "", rows.size()};
      panel.spec = LineSpec(panel.title, rows, pct + " latency (" + unit.name + ")", false);
      model_panels += PanelHtml(panel, &specs);
    }
    body << "</table>\n";
    if (!model_panels.empty()) body << "<div class=\"panels\">\n" << model_panels << "</div>\n";

    // Every point, invalid ones marked.
    body << "<h2>Points</h2>\n";
    for (const auto& g : a.groups) {
      body << "<h3>" << Esc(g.key) << "</h3>\n";
      if (g.failed) {
        body << "<p class=\"bad\">not run: " << Esc(g.failure) << "</p>\n";
        continue;
      }
      body << "<table class=\"points\"><tr><th>target QPS</th><th>achieved</th><th>timely</th>"
              "<th>"
           << pct << " (µs)</th><th>interval (µs)</th><th>mean (µs)</th><th>meets QoS</th>"
              "<th>CPU</th><th>service (µs)</th><th>valid</th></tr>\n";
      for (const auto& p : g.points) {
        std::string why;
        for (const auto& r : p.reasons) why += (why.empty() ? "" : "; ") + r;
        body << "<tr class=\"" << (p.valid ? "valid" : "invalid") << "\"><td class=\"num\">"
             << FormatNumber(p.target_load) << "</td><td class=\"num\">"
             << FormatNumber(p.achieved_qps) << "</td><td class=\"num\">"
             << FormatNumber(p.timely_ratio * 100) << " %</td><td class=\"num\">"
             << FormatNumber(p.tail_us) << "</td><td>"
             << (p.tail_low_us ? "[" + FormatNumber(*p.tail_low_us) + ", " +
                                     FormatNumber(p.tail_high_us.value_or(p.tail_us)) + "]"
                               : "—")
             << "</td><td class=\"num\">" << FormatNumber(p.mean_us) << "</td><td>"
             << (p.meets_qos ? (*p.meets_qos ? "yes" : "no") : "—") << "</td><td class=\"num\">"
             << (p.cpu_util.has() ? FormatNumber(*p.cpu_util.value * 100) + " %"
                                  : "unavailable")
             << "</td><td class=\"num\">" << (p.service_us ? FormatNumber(*p.service_us) : "—")
             << "</td><td>" << (p.valid ? "valid" : "invalid: " + Esc(why)) << "</td></tr>\n";
      }
      body << "</table>\n";
    }

    // Environment.
    body << "<h2>Environment</h2>\n<table id=\"environment\">\n";
    const json& env = d.environment;
    for (const char* k : {"ream_version", "ream_commit", "hostname", "kernel", "cpu_model"}) {
      if (env.contains(k) && env[k].is_string()) {
        body << "<tr><th>" << k << "</th><td>" << Esc(env[k].get<std::string>()) << "</td></tr>\n";
      }
    }
    if (env.contains("topology") && env["topology"].is_object()) {
      const json& t = env["topology"];
      auto num = [&](const char* key) {
        return t.contains(key) && t[key].is_number() ? t[key].dump() : std::string("?");
      };
      body << "<tr><th>topology</th><td>" << num("logical_cpus") << " logical CPUs, "
           << num("physical_cores") << " physical cores, " << num("threads_per_core")
           << " thread(s) per core";
      if (t.contains("llc") && t["llc"].is_object() && t["llc"].contains("size_bytes")) {
        body << ", LLC " << t["llc"]["size_bytes"].dump() << " bytes, "
             << t["llc"].value("ways", 0) << "-way";
      }
      body << "</td></tr>\n";
    }
    if (env.is_null() || env.empty()) {
      body << "<tr><td>no environment was recorded with this experiment</td></tr>\n";
    }
    body << "</table>\n";
    if (env.contains("doctor") && env["doctor"].is_array()) {
      body << "<table id=\"capabilities\"><tr><th>capability</th><th>status</th><th>detail</th>"
              "</tr>\n";
      for (const auto& c : env["doctor"]) {
        auto s = [&](const char* k) {
          return c.contains(k) && c[k].is_string() ? c[k].get<std::string>() : std::string();
        };
        body << "<tr><td>" << Esc(s("name")) << "</td><td>" << Esc(s("status")) << "</td><td>"
             << Esc(s("detail")) << "</td></tr>\n";
      }
      body << "</table>\n";
    }
    for (const auto& w : a.warnings) body << "<p class=\"bad\">warning: " << Esc(w) << "</p>\n";
    body << "<p class=\"muted\">Charts: " << Esc(assets_.versions)
         << ", inlined; this file loads nothing from the network.</p>\n";

    json all_specs = json::object();
    for (const auto& [id, spec] : specs) all_specs[id] = spec;

    os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>ream report — " << Esc(a.experiment) << "</title>\n<style>" << kStyle
       << "</style>\n";
    os << "<script>" << InlineScript(assets_.vega) << "\n</script>\n";
    os << "<script>" << InlineScript(assets_.vega_lite) << "\n</script>\n";
    os << "<script>" << InlineScript(assets_.vega_embed) << "\n</script>\n";
    os << "</head>\n<body>\n" << body.str();
    os << "<script type=\"application/json\" id=\"ream-analysis\">"
       << ScriptJson(analysis::ToJson(a)) << "</script>\n";
    os << "<script type=\"application/json\" id=\"ream-specs\">" << ScriptJson(all_specs)
       << "</script>\n";
    os << R"(<script>
(function () {
  var specs = JSON.parse(document.getElementById('ream-specs').textContent);
  var ids = Object.keys(specs);
  var state = window.reamCharts = {total: ids.length, rendered: 0, failed: 0, done: false};
  var pending = ids.map(function (id) {
    var el = document.getElementById(id);
    return vegaEmbed(el, specs[id], {actions: false, renderer: 'svg'}).then(function (r) {
      state.rendered++;
      el.setAttribute('data-rendered', 'true');
    }).catch(function (e) {
      state.failed++;
      el.setAttribute('data-rendered', 'error');
      el.textContent = 'chart failed: ' + e;
      console.error('ream report: chart ' + id + ' failed: ' + e);
    });
  });
  Promise.all(pending).then(function () { state.done = true; });
})();
</script>
</body>
</html>
)";
    if (!os) return IoError("writing the HTML report failed");
    return Status::Ok();
  }

 private:
  HtmlAssets assets_;
};

}  // namespace

Result<HtmlAssets> LoadHtmlAssets(Platform& platform, const std::string& node_modules) {
  HtmlAssets a;
  struct Item {
    const char* package;
    const char* file;
    std::string* out;
  };
  Item items[] = {{"vega", "build/vega.min.js", &a.vega},
                  {"vega-lite", "build/vega-lite.min.js", &a.vega_lite},
                  {"vega-embed", "build/vega-embed.min.js", &a.vega_embed}};
  for (const auto& it : items) {
    std::string path = node_modules + "/" + it.package + "/" + it.file;
    auto js = platform.ReadFile(path);
    if (!js.ok()) {
      return NotFound("report asset " + path + " is missing (" + js.status().message() +
                      "); install the chart libraries with scripts/install-deps (npm install "
                      "in report-assets/), or point --assets at a node_modules directory");
    }
    *it.out = std::move(js).value();
    std::string version = "?";
    auto pkg = platform.ReadFile(node_modules + "/" + it.package + "/package.json");
    if (pkg.ok()) {
      auto j = json::parse(*pkg, nullptr, false);
      if (!j.is_discarded() && j.contains("version") && j["version"].is_string()) {
        version = j["version"].get<std::string>();
      }
    }
    a.versions += (a.versions.empty() ? "" : ", ") + std::string(it.package) + " " + version;
  }
  return a;
}

std::unique_ptr<Reporter> MakeHtmlReporter(HtmlAssets assets) {
  return std::make_unique<HtmlReporter>(std::move(assets));
}

}  // namespace ream::report
