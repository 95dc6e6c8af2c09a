// The sections of `ream report`'s page, one function each, in page order (html_reporter.cc
// puts them together). Each writes its HTML to `body` and the specs of its charts to `specs`.
#include "report/html_sections.h"

#include <algorithm>
#include <cstdio>

#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {

using analysis::ExperimentAnalysis;
using analysis::GroupAnalysis;
using nlohmann::json;

namespace {

std::string RatioCell(const std::string& metric, const analysis::Ratio& r) {
  if (r.value) return "<td>" + Fig(metric, r.value, "", "") + "×</td>";
  return "<td data-metric=\"" + Esc(metric) + "\" data-value=\"null\">" + Esc(r.status) + "</td>";
}

}  // namespace

// Title and what was measured.
void HeaderSection(const Page& page, std::ostream& body) {
  const analysis::ExperimentData& d = page.d;
  const ExperimentAnalysis& a = page.a;
  body << "<h1>ream report — " << Esc(a.experiment) << "</h1>\n";
  body << "<p class=\"muted\">workload: " << Esc(d.workload.empty() ? "(unnamed)" : d.workload)
       << (d.protocol.empty() ? "" : " · protocol: " + Esc(d.protocol))
       << (d.created.empty() ? "" : " · created " + Esc(d.created))
       << (d.status.empty() ? "" : " · status: " + Esc(d.status)) << "</p>\n";
}

// The QoS target and the rule a point is judged by.
void QosSection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  body << "<h2>QoS target</h2>\n<p class=\"headline\">LQoS = " << Fig("lqos_us", a.qos.target_us)
       << " µs";
  if (a.qos.target_us) {
    body << " — " << Esc(a.qos.method);
    if (a.qos.service_time_us) {
      body << "; mean service time at the reference utilization "
           << Fig("service_time_us", a.qos.service_time_us) << " µs (" << Esc(a.qos.service_method)
           << ")";
    }
  } else {
    body << " — unavailable: " << Esc(a.qos.unavailable);
  }
  body << "</p>\n";
  if (!a.qos.note.empty()) body << "<p class=\"muted\">" << Esc(a.qos.note) << "</p>\n";
  if (a.qos.by_deadline_miss) {
    body << "<p>A level meets QoS when it is valid and at most " << FormatNumber(analysis::kSessionMaxDeadlineMiss * 100)
         << " % of its chunks missed their play-out deadline (LQoS here is that deadline; see Sessions below). "
            "Invalid points (drawn as crosses) are shown but never used for capacity.</p>\n";
  } else {
    body << "<p>A point meets QoS when it is valid and its " << pct
         << " latency is at most LQoS. Invalid points (drawn as crosses) are shown but never "
            "used for capacity.</p>\n";
  }
}

// Table 1: the load range each scenario / partition was swept over.
void LoadRangeSection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  body << "<h2>Table 1 — load range</h2>\n<table id=\"table1\"><tr><th>scenario / "
          "partition</th><th>"
       << page.load_unit
       << " range</th><th>clients</th><th>points</th><th>valid</th>"
          "<th>invalid</th></tr>\n";
  for (const auto& g : a.groups) {
    if (g.failed) {
      body << "<tr><td>" << Esc(g.key)
           << "</td><td colspan=\"5\" class=\"bad\">not run: " << Esc(g.failure) << "</td></tr>\n";
      continue;
    }
    body << "<tr><td>" << Esc(g.key) << "</td><td>" << FormatNumber(g.min_qps) << "–"
         << FormatNumber(g.max_qps) << "</td><td>" << g.min_clients
         << (g.max_clients != g.min_clients ? "–" + std::to_string(g.max_clients) : "")
         << "</td><td class=\"num\">" << g.points.size() << "</td><td class=\"num\">"
         << g.valid_points << "</td><td class=\"num\">" << g.invalid_points << "</td></tr>\n";
  }
  body << "</table>\n";
  for (const auto& g : a.groups) {
    if (g.load_range_note.empty()) continue;
    body << "<p class=\"muted\">" << Esc(g.key) << ": range chosen by probes (qps = \"auto\"): "
         << Esc(g.load_range_note) << "</p>\n";
  }
}

// Table 2: the capacity under QoS ("max QPS under QoS" on a qps axis) and its neighbours.
void CapacitySection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  const std::string& u = page.load_unit;
  body << "<h2>Table 2 — " << u
       << " under QoS</h2>\n<table id=\"table2\"><tr><th>scenario / "
          "partition</th><th>LQoS (µs)</th><th>"
       << u << " under QoS</th><th>" << FormatNumber(a.confidence * 100) << " % interval</th><th>"
       << u << " at 20 % CPU</th><th>" << u << " at 50 % CPU</th><th>saturation " << u
       << "</th><th>how</th></tr>\n";
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
         << Esc(c.status)
         << (c.interval_method.empty() ? std::string() : "; its interval: " + Esc(c.interval_method))
         << "; saturation " << Esc(g.saturation_note) << "</td></tr>\n";
  }
  body << "</table>\n";
}

// 2-ST and 2-SMT against 1-ST.
void ScalingSection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  const std::string& u = page.load_unit;
  body << "<h2>Scaling with threads and SMT</h2>\n";
  for (const auto& [scenario, why] : a.skipped_scenarios) {
    body << "<p class=\"skipped\" id=\"skipped-" << Esc(scenario) << "\">" << Esc(scenario)
         << " — not available here: " << Esc(why) << "</p>\n";
  }
  body << "<table id=\"scaling\"><tr><th></th><th>" << u
       << " under QoS</th><th>" << u << " at 20 % CPU</th><th>" << u << " at 50 % CPU</th></tr>\n";
  body << "<tr><td>2-ST / 1-ST</td>" << RatioCell("scaling_capacity_2st", a.scaling.capacity_2st)
       << RatioCell("scaling_qps20_2st", a.scaling.qps20_2st)
       << RatioCell("scaling_qps50_2st", a.scaling.qps50_2st) << "</tr>\n";
  body << "<tr><td>2-SMT / 1-ST</td>" << RatioCell("scaling_capacity_2smt", a.scaling.capacity_2smt)
       << RatioCell("scaling_qps20_2smt", a.scaling.qps20_2smt)
       << RatioCell("scaling_qps50_2smt", a.scaling.qps50_2smt) << "</tr>\n</table>\n";
}

// The category and the evidence for and against each.
void CategorySection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
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
}

// The cheapest measured allocation meeting QoS at the asked load, when one was asked.
void AcrossRunsSection(const Page& page, std::ostream& body) {
  const analysis::AcrossRuns& r = page.a.across_runs;
  if (r.experiments.empty()) return;
  body << "<h2>Across runs</h2>\n<p>" << r.experiments.size()
       << " runs of one spec pooled: every interval above is over the repetitions of all of them. "
          "Each run on its own, and the range over the runs whose figure is exact (spread: its width "
          "over their median):</p>\n<table><tr><th>figure</th><th>group</th>";
  for (const auto& e : r.experiments) body << "<th>" << Esc(e) << "</th>";
  body << "<th>pooled</th><th>range over runs</th><th>spread</th><th>note</th></tr>\n";
  for (const auto& f : r.figures) {
    body << "<tr><td>" << Esc(f.figure) << "</td><td>" << Esc(f.group) << "</td>";
    for (const auto& b : f.per_run) body << "<td>" << Esc(BoundedText(b, FormatNumber, true)) << "</td>";
    body << "<td>" << Esc(BoundedText(f.pooled, FormatNumber)) << "</td><td>"
         << (f.low && f.high ? FormatNumber(*f.low) + "–" + FormatNumber(*f.high) : std::string("—")) << "</td><td>"
         << (f.spread ? FormatNumber(*f.spread * 100) + " %" : std::string("—")) << "</td><td>" << Esc(f.note)
         << "</td></tr>\n";
  }
  body << "</table>\n";
}

void RecommendationSection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  if (a.recommendation) {
    body << "<h2>Recommendation</h2>\n<p class=\"headline\">For "
         << Fig("recommendation_target_qps", a.recommendation->target_qps) << " " << page.load_unit
         << ": <span data-metric=\"recommendation\" data-value=\""
         << Esc(a.recommendation->group_key.value_or("none")) << "\">"
         << Esc(a.recommendation->explanation) << "</span></p>\n";
  }
}

// The first seed's six panels against load, one line per scenario (unlimited partitions;
// all groups when none is).
void ProfileSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  LatencyUnit unit = page.unit;
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
  // A sessions sweep's panel (a) is the seed's media-streaming figure: a chunk's response +
  // transfer time, its play-out deadline dashed.
  const std::string tail_title = a.qos.by_deadline_miss
                                     ? "(a) " + pct + " chunk transfer + response time, play-out deadline dashed"
                                     : "(a) " + pct + " tail latency, LQoS dashed";
  body << PanelHtml(TailPanel(a, base, "tail", tail_title, unit), specs);
  body << PanelHtml(MetricPanel("cpu", "(b) CPU utilization", "% of allotted CPUs", base,
                                &PA::cpu_util, 100, a.load_axis),
                    specs);
  body << PanelHtml(NetworkPanel(base, "net", a.load_axis), specs);
  body << PanelHtml(MetricPanel("disk", "(d) disk bandwidth", "MB/s (read + write)", base,
                                &PA::disk_bps, 1e-6, a.load_axis),
                    specs);
  // An estimate (LLC misses × line size, where resctrl monitoring is absent) says so in its
  // title: it is not the memory controller's count.
  std::string membw_estimate;
  for (const GroupAnalysis* g : base) {
    for (const auto& p : g->points) {
      if (membw_estimate.empty() && p.membw_bps.has() && p.membw_method.rfind("estimate", 0) == 0) {
        membw_estimate = " — " + p.membw_method;
      }
    }
  }
  body << PanelHtml(MetricPanel("membw", "(e) memory bandwidth" + membw_estimate, "MB/s", base,
                                &PA::membw_bps, 1e-6, a.load_axis),
                    specs);
  body << PanelHtml(
      MetricPanel("llc", "(f) LLC occupancy", "MB", base, &PA::llc_bytes, 1e-6, a.load_axis),
      specs);
  body << "</div>\n";
}

// Capacity across each resource's partitions, and the latency curves behind it.
void SensitivitySection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  LatencyUnit unit = page.unit;
  body << "<h2>Sensitivity to resource partitions</h2>\n<table id=\"sensitivity\"><tr><th>"
          "resource</th><th>scenario</th><th>status</th><th>settings: "
       << page.load_unit << " under QoS (change)</th><th>why</th></tr>\n";
  int sens_chart = 0;
  std::string sens_panels;
  for (const auto& s : a.sensitivity) {
    body << "<tr><td>" << Esc(s.resource) << "</td><td>" << Esc(s.scenario) << "</td><td>"
         << Esc(s.status) << "</td><td>";
    for (const auto& p : s.points) {
      body << Esc(p.value) << ": "
           << (p.capacity_qps ? (p.lower_bound ? "≥ " : "") + FormatNumber(*p.capacity_qps)
                              : std::string("—"));
      body << RelativeChangeText(p.relative_change);
      if (s.base_load > 0) {
        body << "; mean at " << FormatNumber(s.base_load) << " " << page.load_unit << ": "
             << (p.base_mean_us ? Fig("sensitivity_base_mean_us", p.base_mean_us, p.group_key) + " µs"
                                : Esc(p.base_note));
      }
      body << "<br>";
    }
    body << "</td><td>" << Esc(s.explanation) << "</td></tr>\n";
    if (s.points.size() < 2) continue;
    std::vector<const GroupAnalysis*> gs;
    for (const auto& p : s.points) {
      if (const auto* g = a.Find(p.group_key)) gs.push_back(g);
    }
    Panel mean = MeanPanel(a, gs, "sensmean" + std::to_string(sens_chart),
                           "mean response time by " + s.resource + " (" + s.scenario + ")", unit);
    sens_panels += PanelHtml(mean, specs);
    Panel p = TailPanel(a, gs, "sens" + std::to_string(sens_chart++),
                        pct + " latency by " + s.resource + " (" + s.scenario + ")", unit);
    sens_panels += PanelHtml(p, specs);
  }
  body << "</table>\n";
  if (!sens_panels.empty()) body << "<div class=\"panels\">\n" << sens_panels << "</div>\n";
}

namespace {

std::string Num(const std::optional<double>& v, double scale = 1) {
  return v ? FormatNumber(*v * scale) : std::string("—");
}

// One Table 5.1 (of the mean or of the tail): per group a measured and a modeled row.
void RegressionTableHtml(const ExperimentAnalysis& a, bool mean, const std::string& pct, std::ostream& body) {
  const std::string stat = mean ? "mean" : pct;
  const std::string id = mean ? "model_regression_mean" : "model_regression_tail";
  body << "<h3>Table 5.1 — " << Esc(stat) << " response time: measured vs model</h3>\n<table id=\"" << id
       << "\"><tr><th>scenario / partition</th><th>range</th><th>curve</th><th>slope (µs per QPS)</th>"
          "<th>intercept (µs)</th><th>base (µs) at QPS</th><th>R²</th><th>mean |relative error|</th>"
          "<th>max |relative error|</th></tr>\n";
  for (const auto& g : a.groups) {
    if (g.failed) continue;
    if (!g.model) {
      body << "<tr><td>" << Esc(g.key) << "</td><td colspan=\"8\" class=\"muted\">unavailable: "
           << Esc(g.model_unavailable) << "</td></tr>\n";
      continue;
    }
    const auto& m = *g.model;
    const analysis::RegressionTable& t = mean ? m.mean : m.tail;
    const std::string range = FormatNumber(m.range_low * 100) + "–" + FormatNumber(m.range_high * 100) +
                              " % CPU (" + m.range_source + "), " + std::to_string(t.points) + " point(s)";
    if (!t.measured) {
      body << "<tr><td>" << Esc(g.key) << "</td><td>" << Esc(range) << "</td><td colspan=\"7\" class=\"muted\" "
           << "data-metric=\"" << id << "_unavailable\" data-group=\"" << Esc(g.key) << "\">unavailable: "
           << Esc(t.unavailable) << "</td></tr>\n";
      continue;
    }
    const std::string prefix = mean ? "model_mean_" : "model_tail_";
    auto row = [&](const char* curve, const std::optional<analysis::CurveRegression>& r, bool first) {
      std::string cells = std::string("<td>") + curve + "</td>";
      if (!r) {
        cells += "<td colspan=\"4\" class=\"muted\">" + Esc(t.unavailable) + "</td>";
      } else {
        cells += "<td class=\"num\">" + Fig(prefix + curve + "_slope", r->fit.slope * 1e6, g.key) +
                 "</td><td class=\"num\">" + Fig(prefix + curve + "_intercept_us", r->fit.intercept * 1e6, g.key) +
                 "</td><td class=\"num\">" + Fig(prefix + curve + "_base_us", r->base_s * 1e6, g.key) + " at " +
                 FormatNumber(t.base_load_qps) + "</td><td class=\"num\">" +
                 Fig(prefix + curve + "_r2", r->fit.r2, g.key) + "</td>";
      }
      if (first) {
        cells += "<td rowspan=\"2\" class=\"num\">" + Fig(prefix + "mean_rel_error", t.mean_abs_relative_error, g.key) +
                 "</td><td rowspan=\"2\" class=\"num\">" +
                 Fig(prefix + "max_rel_error", t.max_abs_relative_error, g.key) + "</td>";
      }
      return cells;
    };
    body << "<tr><td rowspan=\"2\">" << Esc(g.key) << "</td><td rowspan=\"2\">" << Esc(range) << "</td>"
         << row("measured", t.measured, true) << "</tr>\n<tr>" << row("model", t.modeled, false) << "</tr>\n";
  }
  body << "</table>\n";
}

}  // namespace

// The second seed's queueing model against the measured curve (its Table 5.1), the queues
// compared, and its predicted sensitivities (§5.3.3) beside the measured ones.
void ModelSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  LatencyUnit unit = page.unit;
  body << "<h2>Queueing model against measurement</h2>\n<p>An open network of a delay center D (the measured "
          "base round trip, with 2·L) and a CPU queue of c servers with per-operation demand S = S0 + k·o; "
          "X_sat = c / (S0 + k·o). The queue is M/G/1 (Pollaczek–Khinchine) where the service time's second "
          "moment is known, M/M/c (Erlang C) otherwise. Linear regressions of the mean (and the "
       << pct
       << ") response time against load over the operating range, measured and modeled side by side, as the "
          "second seed's Table 5.1.</p>\n";
  body << "<table id=\"model\"><tr><th>scenario / partition</th><th>queue</th><th>S = S0 + k·o (µs)</th>"
          "<th>S0 (µs)</th><th>SCV of S</th><th>D (µs)</th><th>X_sat (QPS)</th><th>how</th></tr>\n";
  std::string model_panels;
  int model_chart = 0;
  for (const auto& g : a.groups) {
    if (g.failed) continue;
    if (!g.model) {
      body << "<tr><td>" << Esc(g.key) << "</td><td colspan=\"7\" class=\"muted\">unavailable: "
           << Esc(g.model_unavailable) << "</td></tr>\n";
      continue;
    }
    const auto& m = *g.model;
    body << "<tr><td>" << Esc(g.key) << "</td><td>" << Esc(m.queue) << "</td><td class=\"num\">"
         << FormatNumber(m.demand_s * 1e6) << "</td><td class=\"num\">" << Fig("model_s0_us", m.s0_s * 1e6, g.key)
         << "</td><td class=\"num\">" << FormatNumber(m.model.scv) << "</td><td class=\"num\">"
         << FormatNumber(m.delay_s * 1e6) << "</td><td class=\"num\">"
         << Fig("model_xsat_qps", m.saturation_qps, g.key) << "</td><td class=\"muted\">S0: " << Esc(m.s0_method)
         << "; SCV: " << Esc(m.scv_method) << "; D: " << Esc(m.delay_method) << "; k = "
         << FormatNumber(m.messages_per_op) << ", o = " << FormatNumber(m.overhead_s * 1e6) << " µs, L = "
         << FormatNumber(m.latency_s * 1e6) << " µs</td></tr>\n";
    model_panels += PanelHtml(ModelPanel(g, "model" + std::to_string(model_chart++), pct, unit), specs);
  }
  body << "</table>\n";
  RegressionTableHtml(a, true, pct, body);
  RegressionTableHtml(a, false, pct, body);
  body << "<h3>The queues compared (mean response time over the range)</h3>\n<table id=\"model_variants\"><tr>"
          "<th>scenario / partition</th><th>queue</th><th>SCV</th><th>mean |relative error|</th>"
          "<th>max |relative error|</th><th>how</th></tr>\n";
  for (const auto& g : a.groups) {
    if (g.failed || !g.model) continue;
    for (const auto& v : g.model->variants) {
      body << "<tr><td>" << Esc(g.key) << "</td><td>" << Esc(v.name) << "</td>";
      if (!v.unavailable.empty()) {
        body << "<td colspan=\"4\" class=\"muted\">unavailable: " << Esc(v.unavailable) << "</td></tr>\n";
        continue;
      }
      body << "<td class=\"num\">" << Num(v.scv) << "</td><td class=\"num\">" << Num(v.mean_abs_relative_error)
           << "</td><td class=\"num\">" << Num(v.max_abs_relative_error) << "</td><td class=\"muted\">"
           << Esc(v.scv_method) << "</td></tr>\n";
    }
  }
  body << "</table>\n";
  if (!model_panels.empty()) body << "<div class=\"panels\">\n" << model_panels << "</div>\n";

  if (a.predicted_sensitivity.empty()) return;
  body << "<h3>Predicted against measured sensitivity (second seed §5.3.3)</h3>\n<table "
          "id=\"predicted_sensitivity\"><tr><th>knob</th><th>scenario</th><th>setting</th><th>base (µs) "
          "predicted</th><th>base (µs) measured</th><th>slope predicted</th><th>slope measured</th>"
          "<th>saturation (QPS) predicted</th><th>saturation (QPS) measured</th><th>notes</th></tr>\n";
  for (const auto& ps : a.predicted_sensitivity) {
    const std::string knob = ps.knob + " (" + ps.parameter + ")";
    if (!ps.unavailable.empty()) {
      body << "<tr><td>" << Esc(knob) << "</td><td>" << Esc(ps.scenario) << "</td><td colspan=\"8\" "
           << "class=\"muted\">unavailable: " << Esc(ps.unavailable) << "</td></tr>\n";
      continue;
    }
    bool first = true;
    for (const auto& s : ps.settings) {
      body << "<tr><td>" << (first ? Esc(knob) + "<br><span class=\"muted\">" + Esc(ps.rule) + "; base at " +
                                         FormatNumber(ps.base_load_qps) + " QPS</span>"
                                   : "")
           << "</td><td>" << (first ? Esc(ps.scenario) : "") << "</td><td>" << Esc(s.value)
           << (first ? " (reference)" : "") << "</td><td class=\"num\">"
           << Fig("predicted_base_us", s.predicted_base_us, s.group_key) << "</td><td class=\"num\">"
           << Fig("measured_base_us", s.measured_base_us, s.group_key) << "</td><td class=\"num\">"
           << Num(s.predicted_slope_us_per_qps) << "</td><td class=\"num\">" << Num(s.measured_slope_us_per_qps)
           << "</td><td class=\"num\">" << Fig("predicted_saturation_qps", s.predicted_saturation_qps, s.group_key)
           << "</td><td class=\"num\">" << Fig("measured_saturation_qps", s.measured_saturation_qps, s.group_key)
           << "</td><td class=\"muted\">" << Esc(s.predicted_note)
           << (s.measured_note.empty() ? "" : "; measured: " + Esc(s.measured_note)) << "</td></tr>\n";
      first = false;
    }
  }
  body << "</table>\n";
}

// A point's network path in one line: "net_latency: relay (...); requested 200 us, measured
// 204 us; relay's own added latency 31 us".
static std::string NetworkText(const json& n) {
  if (!n.is_object()) return "";
  std::string s;
  auto add = [&](const std::string& t) { s += (s.empty() ? "" : "; ") + t; };
  if (n.contains("methods") && n["methods"].is_object()) {
    for (auto it = n["methods"].begin(); it != n["methods"].end(); ++it) {
      if (it.value().is_string()) add(it.key() + ": " + it.value().get<std::string>());
    }
  }
  if (n.contains("calibrations") && n["calibrations"].is_array()) {
    for (const auto& c : n["calibrations"]) {
      std::string unit = c.value("unit", std::string());
      std::string t = c.value("knob", std::string()) + " requested " + FormatNumber(c.value("requested", 0.0)) + " " + unit;
      t += c.contains("measured") && c["measured"].is_number()
               ? ", measured " + FormatNumber(c["measured"].get<double>()) + " " + unit
               : ", not measured";
      if (c.value("warning", false)) t += " (WARNING: " + c.value("note", std::string()) + ")";
      add(t);
    }
  }
  if (n.contains("relay_added_us") && n["relay_added_us"].is_number()) {
    add("the relay's own added latency " + FormatNumber(n["relay_added_us"].get<double>()) + " µs");
  }
  return s;
}

// Every point, invalid ones marked.
void PointsSection(const Page& page, std::ostream& body) {
  const ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  body << "<h2>Points</h2>\n";
  for (const auto& g : a.groups) {
    body << "<h3>" << Esc(g.key) << "</h3>\n";
    if (g.failed) {
      body << "<p class=\"bad\">not run: " << Esc(g.failure) << "</p>\n";
      continue;
    }
    // A network column only where a LogGP knob was set: how each was applied and what its
    // calibration measured (a warning when off by more than 10 %).
    bool network = std::any_of(g.points.begin(), g.points.end(), [](const auto& p) { return !p.network.is_null(); });
    // Connections the server closed, where the generator counted them (points stored before
    // it reconnected have no such figure, and their tables stay as they were).
    bool connections = std::any_of(g.points.begin(), g.points.end(), [](const auto& p) { return p.reconnections.has_value(); });
    body << "<table class=\"points\"><tr><th>target " << page.load_unit
         << "</th><th>achieved</th><th>timely</th>"
            "<th>"
         << pct
         << " (µs)</th><th>interval (µs)</th><th>mean (µs)</th><th>meets QoS</th>"
            "<th>CPU</th><th>service (µs)</th><th>valid</th>"
         << (network ? "<th>network (method; requested → measured)</th>" : "")
         << (connections ? "<th>reconnections</th><th>lost on closed connections</th>" : "") << "</tr>\n";
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
           << (p.cpu_util.has() ? FormatNumber(*p.cpu_util.value * 100) + " %" : "unavailable")
           << "</td><td class=\"num\">" << (p.service_us ? FormatNumber(*p.service_us) : "—")
           << "</td><td>" << (p.valid ? "valid" : "invalid: " + Esc(why)) << "</td>";
      if (network) body << "<td>" << Esc(NetworkText(p.network)) << "</td>";
      if (connections) {
        std::string lost_why;
        for (const auto& [reason, n] : p.lost_reasons) {
          lost_why += (lost_why.empty() ? "" : "; ") + std::to_string(n) + " × " + reason;
        }
        body << "<td class=\"num\">" << (p.reconnections ? std::to_string(*p.reconnections) : "—")
             << "</td><td class=\"num\"" << (lost_why.empty() ? "" : " title=\"" + Esc(lost_why) + "\"") << ">"
             << (p.lost_requests ? std::to_string(*p.lost_requests) : "—") << "</td>";
      }
      body << "</tr>\n";
    }
    body << "</table>\n";
    // Client nodes, where they drove the load: each one's part of each point, so the host
    // that fell behind is named (docs/nodes.md).
    if (std::any_of(g.points.begin(), g.points.end(), [](const auto& p) { return !p.agents.empty(); })) {
      body << "<table class=\"agents\"><tr><th>target " << page.load_unit
           << "</th><th>client node</th><th>asked (QPS)</th><th>achieved (QPS)</th><th>timely</th>"
              "<th>lateness p99 (µs)</th><th>latency p99 (µs)</th><th>clock offset (µs)</th>"
              "<th>clock round trip (µs)</th><th>verdict</th></tr>\n";
      auto opt = [](const std::optional<double>& v) { return v ? FormatNumber(*v) : std::string("—"); };
      for (const auto& p : g.points) {
        for (const auto& ag : p.agents) {
          std::string verdict = ag.valid ? (*ag.valid ? "valid" : "invalid") : "no result";
          std::string why = ag.failure;
          for (const auto& r : ag.invalid_reasons) why += (why.empty() ? "" : "; ") + r;
          if (!why.empty()) verdict += ": " + why;
          body << "<tr class=\"" << (ag.valid.value_or(false) ? "valid" : "invalid") << "\"><td class=\"num\">"
               << FormatNumber(p.target_load)
               << (p.repetitions > 1 ? " (" + std::to_string(ag.measurement) + ")" : "") << "</td><td>"
               << Esc(ag.name) << "</td><td class=\"num\">" << FormatNumber(ag.target_qps)
               << "</td><td class=\"num\">" << FormatNumber(ag.achieved_qps) << "</td><td class=\"num\">"
               << FormatNumber(ag.timely_ratio * 100) << " %</td><td class=\"num\">" << opt(ag.lateness_p99_us)
               << "</td><td class=\"num\">" << opt(ag.latency_p99_us) << "</td><td class=\"num\">"
               << opt(ag.clock_offset_us) << "</td><td class=\"num\">" << opt(ag.clock_rtt_us) << "</td><td>"
               << Esc(verdict) << "</td></tr>\n";
        }
      }
      body << "</table>\n";
    }
  }
}

// Where it ran: the recorded environment and the `ream doctor` probes.
void EnvironmentSection(const Page& page, std::ostream& body) {
  const analysis::ExperimentData& d = page.d;
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
      body << ", LLC " << t["llc"]["size_bytes"].dump() << " bytes, " << t["llc"].value("ways", 0)
           << "-way";
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
}

}  // namespace ream::report
