// Shared servers on the page: per co-runner set, the subject's capacity alone and
// together with their intervals and the verdict, its tail against load alone and together on
// one panel, the levels with slack and EMU, and each co-runner's throughput alone and together.
// Only a page of an experiment with [[corunner]]s has it.
#include <algorithm>
#include <cstdio>

#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/panels.h"
#include "report/reporter.h"

namespace ream::report {

namespace {

std::string Cell(const std::optional<double>& v, bool lower = false) {
  return v ? (lower ? "≥ " : "") + FormatNumber(*v) : std::string("—");
}

std::string Interval(const std::optional<double>& low, const std::optional<double>& high) {
  return low && high ? "[" + FormatNumber(*low) + ", " + FormatNumber(*high) + "]" : std::string("—");
}

std::string Pct(const std::optional<double>& v) {
  if (!v) return "—";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", *v * 100);
  return b;
}

}  // namespace

void ColocationSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const analysis::ExperimentAnalysis& a = page.a;
  if (a.colocation.empty() && a.colocation_note.empty()) return;
  body << "<h2>Co-location: the subject alone and beside its co-runners</h2>\n<p>" << Esc(a.colocation_note)
       << ". EMU (Heracles' effective machine utilization) = load / capacity alone + Σ co-runner throughput "
          "together / alone; slack = (LQoS − "
       << Esc(page.pct) << " together) / LQoS.</p>\n";
  body << "<table id=\"colocation\"><tr><th>co-runners</th><th>scenario / partition</th><th>" << page.load_unit
       << " under QoS alone</th><th>interval</th><th>" << page.load_unit
       << " under QoS together</th><th>interval</th><th>ratio</th><th>verdict</th></tr>\n";
  for (const auto& g : a.colocation) {
    body << "<tr><td>" << Esc(g.set) << "</td><td>" << Esc(g.group_key) << "</td><td>"
         << Fig("colocation_alone_capacity", g.alone_capacity, g.set + "/" + g.group_key) << "</td><td>"
         << Interval(g.alone_low, g.alone_high) << "</td><td>"
         << Fig("colocation_together_capacity", g.together_capacity, g.set + "/" + g.group_key)
         << (g.together_upper_bound && !g.together_capacity ? " (&lt; " + FormatNumber(*g.together_upper_bound) + ")" : "")
         << "</td><td>"
         << Interval(g.together_low, g.together_high) << "</td><td class=\"ratio\" data-bound=\""
         << analysis::BoundName(g.capacity_ratio.bound) << "\">" << Esc(BoundedText(g.capacity_ratio, Times, true))
         << "</td><td>" << Esc(g.verdict)
         << "</td></tr>\n";
  }
  body << "</table>\n";
  std::string panels;
  int n = 0;
  for (const auto& g : a.colocation) {
    body << "<h3>" << Esc(g.set) << " beside the subject, " << Esc(g.group_key) << "</h3>\n";
    if (!g.unavailable.empty()) body << "<p>" << Esc(g.unavailable) << "</p>\n";
    body << "<table class=\"colocation-levels\"><tr><th>" << page.load_unit << "</th><th>" << Esc(page.pct)
         << " alone (µs)</th><th>" << Esc(page.pct)
         << " together (µs)</th><th>p99 alone</th><th>p99 together</th><th>meets QoS together</th><th>slack</th>"
            "<th>EMU</th><th>why invalid</th></tr>\n";
    for (const auto& l : g.levels) {
      std::string meets = l.together_meets ? (*l.together_meets ? "yes" : "no")
                          : l.together_certain_miss ? "no (invalid, but its tail from the send exceeds LQoS)"
                                                    : (l.together_valid ? "—" : "invalid");
      body << "<tr><td>" << FormatNumber(l.load) << "</td><td>" << Cell(l.alone_tail_us) << "</td><td>"
           << Cell(l.together_tail_us) << "</td><td>" << Cell(l.alone_p99_us) << "</td><td>" << Cell(l.together_p99_us)
           << "</td><td>" << meets << "</td><td>" << Pct(l.slack) << "</td><td>"
           << Esc(BoundedText(l.emu, FormatNumber, true)) << "</td><td>"
           << Esc(l.together_reasons.empty() ? "" : l.together_reasons.front()) << "</td></tr>\n";
    }
    body << "</table>\n<table class=\"colocation-corunners\"><tr><th>co-runner</th><th>sched</th><th>CPUs</th>"
            "<th>throughput measure</th><th>alone</th><th>together</th><th>ratio</th><th>note</th></tr>\n";
    for (const auto& c : g.corunners) {
      char ratio[32] = "—";
      if (c.ratio) std::snprintf(ratio, sizeof ratio, "%.2f×", *c.ratio);
      body << "<tr><td>" << Esc(c.name) << "</td><td>" << Esc(c.sched) << "</td><td>" << Esc(c.cpus) << "</td><td>"
           << Esc(ToString(c.unit)) << "</td><td>" << Cell(c.alone) << "</td><td>" << Cell(c.together) << "</td><td>"
           << ratio << "</td><td>" << Esc(c.note) << "</td></tr>\n";
    }
    body << "</table>\n";
    bool loaded = false;
    for (const auto& c : g.corunners) loaded = loaded || c.loaded;
    if (loaded) {
      body << "<table class=\"colocation-loaded\"><tr><th>co-runner under its own load</th><th>its QPS</th>"
              "<th>p95 alone (µs)</th><th>p95 beside the subject (µs)</th><th>valid windows</th><th>why not</th></tr>\n";
      for (const auto& c : g.corunners) {
        if (!c.loaded) continue;
        body << "<tr><td>" << Esc(c.name) << "</td><td>" << FormatNumber(c.load_qps) << "</td><td>"
             << Cell(c.alone_p95_us) << "</td><td>" << Cell(c.together_p95_us) << "</td><td>"
             << c.together_valid_windows << " of " << c.together_windows << "</td><td>"
             << Esc(c.together_invalid_reasons.empty() ? "" : c.together_invalid_reasons.front()) << "</td></tr>\n";
      }
      body << "</table>\n";
    }
    // The subject's tail against load, alone and beside this set, on one panel.
    const analysis::GroupAnalysis* alone = a.Find(g.group_key);
    analysis::GroupAnalysis together;
    together.key = "beside " + g.set;
    for (const auto& l : g.levels) {
      if (!l.together_tail_us) continue;
      analysis::PointAnalysis p;
      p.target_load = l.load;
      p.tail_us = *l.together_tail_us;
      p.valid = l.together_valid;
      together.points.push_back(p);
    }
    std::vector<const analysis::GroupAnalysis*> gs;
    analysis::GroupAnalysis alone_copy;
    if (alone) {
      alone_copy = *alone;
      alone_copy.key = "alone";
      gs.push_back(&alone_copy);
    }
    gs.push_back(&together);
    Panel p = TailPanel(a, gs, "coloc" + std::to_string(n++),
                        page.pct + " latency alone and beside " + g.set + " (" + g.group_key + ")", page.unit);
    panels += PanelHtml(p, specs);
  }
  if (!panels.empty()) body << "<div class=\"panels\">\n" << panels << "</div>\n";
}

namespace {

// LineSpec draws against the load; the sensitivity curve's x is the source's intensity.
void RetitleX(nlohmann::json& j, const std::string& from, const std::string& to) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (k == "title" && v.is_string() && v.get<std::string>() == from) v = to;
      else RetitleX(v, from, to);
    }
  } else if (j.is_array()) {
    for (auto& v : j) RetitleX(v, from, to);
  }
}

// The co-location matrix: subjects × co-runner sets, each cell predicted / measured capacity
// (together / alone) and QoS met at the load, tinted by the verdict (measured where it ran,
// else predicted); then each workload's tolerated and caused intensities as a small heat map.
void MatrixHtml(const analysis::ColocationMatrix& m, std::ostream& body) {
  if (m.sets.empty()) return;
  body << "<h3>Co-location matrix</h3>\n<p>" << Esc(m.note)
       << ". A cell: predicted / measured; green meets QoS at the load, red misses (the measurement's verdict where "
          "the pair ran, else the prediction's).</p>\n<table id=\"colocation-matrix\"><tr><th>subject</th>";
  for (const auto& set : m.sets) body << "<th>" << Esc(set) << "</th>";
  body << "</tr>\n";
  auto side = [](const analysis::Bounded& r, const std::optional<bool>& meets) {
    std::string s = BoundedText(r, SharePercent);
    if (meets) s += *meets ? " ✓" : " ✗";
    return s;
  };
  for (const auto& subject : m.subjects) {
    body << "<tr><th>" << Esc(subject) << "</th>";
    for (const auto& c : m.cells) {
      if (c.subject != subject) continue;
      const std::optional<bool> verdict = c.measured_meets ? c.measured_meets : c.predicted_meets;
      const char* tint = !verdict ? "" : *verdict ? " style=\"background:#d9f2d9\"" : " style=\"background:#f6d4d4\"";
      body << "<td" << tint << " class=\"" << (!verdict ? "unknown" : *verdict ? "safe" : "unsafe") << "\" title=\""
           << Esc(c.note) << "\">" << side(c.predicted_ratio, c.predicted_meets) << " / "
           << side(c.measured_ratio, c.measured_meets) << "</td>";
    }
    body << "</tr>\n";
  }
  body << "</table>\n";
  if (m.heat.empty()) return;
  body << "<p>Tolerated (a subject: the highest intensity that still meets QoS at its load) and caused (a co-runner "
          "set: its pressure score, by the reporter named) per source, in % of the source's dial; darker is more.</p>\n"
          "<table id=\"interference-heat\"><tr><th>workload</th><th>role</th>";
  for (const auto& src : m.sources) body << "<th>" << Esc(src) << "</th>";
  body << "</tr>\n";
  for (const auto& h : m.heat) {
    body << "<tr><td>" << Esc(h.workload) << "</td><td>" << Esc(h.role) << (h.by.empty() ? "" : " (by " + Esc(h.by) + ")")
         << "</td>";
    for (size_t i = 0; i < h.values.size(); ++i) {
      if (!h.values[i]) {
        body << "<td>—</td>";
        continue;
      }
      const double v = std::clamp(*h.values[i], 0.0, 100.0);
      char style[96];
      std::snprintf(style, sizeof style, "background:hsl(%d,70%%,%.0f%%)", h.role == "tolerates" ? 210 : 10,
                    92 - 0.45 * v);
      body << "<td style=\"" << style << "\" data-intensity=\"" << FormatNumber(*h.values[i]) << "\">"
           << (h.at_least[i] ? "≥ " : "") << FormatNumber(*h.values[i]) << " %</td>";
    }
    body << "</tr>\n";
  }
  body << "</table>\n";
}

}  // namespace

void InterferenceSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const analysis::ExperimentAnalysis& a = page.a;
  if (a.interference.empty()) return;
  body << "<h2>Interference: the subject's sensitivity profile</h2>\n<p>Each source of interference at each "
          "intensity ran beside the subject as a co-runner set of its own, interleaved with the subject alone "
          "(0 %). Tolerated: the highest intensity that still meets QoS at the load, interpolated on the tail. "
          "Sensitive: it misses QoS at the load within the dial, or its "
       << page.load_unit << " under QoS at the top intensity is lower than alone beyond both intervals by more than "
       << FormatNumber(analysis::kInterferenceCapacityDrop * 100) << " %.</p>\n";
  body << "<table id=\"interference\"><tr><th>source</th><th>scenario / partition</th><th>load</th>"
          "<th>tolerated intensity</th><th>verdict</th><th>evidence</th></tr>\n";
  for (const auto& p : a.interference) {
    body << "<tr><td>" << Esc(p.source) << "</td><td>" << Esc(p.group_key) << "</td><td>"
         << (p.load ? FormatNumber(*p.load) + " " + page.load_unit : Esc(p.load_how)) << "</td><td>"
         << (p.tolerated ? (p.at_least ? "≥ " : "") + FormatNumber(*p.tolerated) + " %" : "—") << "</td><td>"
         << Esc(p.verdict) << "</td><td>" << Esc(p.evidence) << "</td></tr>\n";
  }
  body << "</table>\n<table class=\"interference-points\"><tr><th>source</th><th>intensity</th><th>"
       << page.load_unit << " under QoS</th><th>interval</th><th>" << Esc(page.pct)
       << " at the load (µs)</th><th>meets QoS</th><th>note</th></tr>\n";
  nlohmann::json cap_rows = nlohmann::json::array(), tail_rows = nlohmann::json::array();
  for (const auto& p : a.interference) {
    const std::string series = p.source + " (" + p.group_key + ")";
    for (const auto& q : p.points) {
      body << "<tr><td>" << Esc(p.source) << "</td><td>" << FormatNumber(q.intensity) << " %</td><td>"
           << (q.capacity ? Cell(q.capacity, q.lower_bound)
                          : q.upper_bound ? "&lt; " + FormatNumber(*q.upper_bound) : std::string("—"))
           << "</td><td>" << Interval(q.low, q.high) << "</td><td>" << Cell(q.tail_us) << "</td><td>"
           << (q.meets ? (*q.meets ? "yes" : "no") : "—") << "</td><td>" << Esc(q.note) << "</td></tr>\n";
      if (q.capacity) {
        cap_rows.push_back({{"series", series}, {"qps", q.intensity}, {"y", *q.capacity}, {"validity", "valid"}, {"why", ""}});
      }
      if (q.tail_us) {
        tail_rows.push_back({{"series", series}, {"qps", q.intensity}, {"y", *q.tail_us * page.unit.per_us},
                             {"validity", "valid"}, {"why", ""}});
      }
    }
  }
  body << "</table>\n";
  const std::string from = "offered load (" + std::string(LoadAxisUnit(a.load_axis)) + ")";
  Panel cap{"interference-capacity", page.load_unit + " under QoS against the intensity", nullptr, "", cap_rows.size()};
  Panel tail{"interference-tail", page.pct + " at the fixed load against the intensity", nullptr, "", tail_rows.size()};
  if (cap_rows.empty()) {
    cap.unavailable = "no intensity has a QPS under QoS";
  } else {
    cap.spec = LineSpec(cap.title, cap_rows, page.load_unit + " under QoS", false, a.load_axis);
    RetitleX(cap.spec, from, "intensity (%)");
  }
  if (tail_rows.empty()) {
    tail.unavailable = "no intensity has a valid tail at the load";
  } else {
    tail.spec = LineSpec(tail.title, tail_rows, page.pct + " (" + page.unit.name + ")", false, a.load_axis, "",
                         a.qos.target_us ? std::optional<double>(*a.qos.target_us * page.unit.per_us) : std::nullopt,
                         "LQoS");
    RetitleX(tail.spec, from, "intensity (%)");
  }
  body << "<div class=\"panels\">\n" << PanelHtml(cap, specs) << PanelHtml(tail, specs) << "</div>\n";
  if (!a.reporter.empty()) {
    body << "<h3>Predicted beside the co-runners experiment '" << Esc(a.reporter)
         << "' scored</h3>\n<p>Bubble-Up's prediction: this subject's curve read at the pressure score the "
            "reporter (that experiment's subject) gave each co-runner set, on the most damaging source; measured "
            "beside the set where this experiment ran it too. "
         << Esc(a.reporter_note) << "</p>\n<table id=\"predictions\"><tr><th>co-runners</th><th>scenario / "
                                     "partition</th><th>source</th><th>score (tail / capacity)</th><th>"
         << Esc(page.pct) << " predicted (µs)</th><th>safe predicted</th><th>" << Esc(page.pct)
         << " measured (µs)</th><th>safe measured</th><th>capacity predicted</th><th>capacity measured</th>"
            "<th>error (pp)</th><th>note</th></tr>\n";
    auto yn = [](const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "—"; };
    for (const auto& q : a.predictions) {
      body << "<tr><td>" << Esc(q.set) << "</td><td>" << Esc(q.group_key) << "</td><td>" << Esc(q.source)
           << "</td><td>" << (q.score ? (q.score_at_least ? "≥ " : "") + FormatNumber(*q.score) + " %" : "—") << " / "
           << (q.capacity_score ? (q.capacity_score_at_least ? "≥ " : "") + FormatNumber(*q.capacity_score) + " %" : "—")
           << "</td><td>" << Esc(BoundedText(q.predicted_tail_us, FormatNumber)) << "</td><td>" << yn(q.predicted_meets)
           << "</td><td>" << Cell(q.measured_tail_us) << "</td><td>" << yn(q.measured_meets) << "</td><td>"
           << Esc(BoundedText(q.predicted_capacity_ratio, SharePercent, true)) << "</td><td>"
           << Esc(BoundedText(q.measured_capacity_ratio, SharePercent, true)) << "</td><td>"
           << Esc(BoundedText(q.capacity_error_pp, FormatNumber, true)) << "</td><td>" << Esc(q.note) << "</td></tr>\n";
    }
    body << "</table>\n";
    if (!a.predictions.empty()) {
      body << "<p id=\"prediction-check\">" << Esc(PredictionCheckText(a.prediction_check)) << ".</p>\n";
    }
    if (!a.prediction_check.left_out.empty()) {
      body << "<ul class=\"prediction-left-out\">";
      for (const auto& why : a.prediction_check.left_out) body << "<li>left out: " << Esc(why) << "</li>";
      body << "</ul>\n";
    }
  }
  MatrixHtml(a.matrix, body);
  if (a.pressure.empty()) return;
  body << "<h3>Pressure caused by the co-runners</h3>\n<p>Bubble-Up's pressure score per source: the intensity of "
          "the source that hurts the subject (the reporter, whose curve is above) as much as the co-runner set does, "
          "read off the curve's tail at its load.</p>\n<table id=\"pressure\"><tr><th>co-runners</th>"
          "<th>scenario / partition</th><th>source</th><th>score by the tail</th><th>score by "
       << page.load_unit << " under QoS</th><th>how</th></tr>\n";
  for (const auto& p : a.pressure) {
    for (const auto& sc : p.scores) {
      body << "<tr><td>" << Esc(p.set) << "</td><td>" << Esc(p.group_key) << "</td><td>" << Esc(sc.source)
           << "</td><td>" << (sc.intensity ? (sc.at_least ? "≥ " : "") + FormatNumber(*sc.intensity) + " %" : "—")
           << "</td><td>"
           << (sc.capacity_intensity ? (sc.capacity_at_least ? "≥ " : "") + FormatNumber(*sc.capacity_intensity) + " %"
                                     : "—")
           << "</td><td>" << Esc(sc.note + "; " + sc.capacity_note) << "</td></tr>\n";
    }
  }
  body << "</table>\n";
}

}  // namespace ream::report
