// The page's section on the modes of a run under one schedule (analysis/manager_compare.h): the
// comparison table, then the timeline of each mode's first run — its load, its tail against the
// QoS target, and in a managed run each tenant's allocation with the moves that changed it.
#include <algorithm>
#include <map>

#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {
namespace {

using nlohmann::json;

// Line + point layers of y against time in the run, one line per series; rows have t, y, series,
// validity and note (a tooltip). A dashed rule at `rule_y` when set.
json TimeSpec(const std::string& title, const json& rows, const std::string& y_title, bool log_y,
              const std::string& series_title, std::optional<double> rule_y = std::nullopt,
              const std::string& rule_label = "") {
  json x = {{"field", "t"}, {"type", "quantitative"}, {"title", "time in the run (s)"}};
  json y = {{"field", "y"}, {"type", "quantitative"}, {"title", y_title}};
  if (log_y) y["scale"] = {{"type", "log"}};
  json color = {{"field", "series"}, {"type", "nominal"}, {"title", series_title}};
  json tooltip = json::array({{{"field", "series"}, {"type", "nominal"}, {"title", series_title}},
                              {{"field", "t"}, {"type", "quantitative"}, {"title", "s"}},
                              {{"field", "y"}, {"type", "quantitative"}, {"title", y_title}},
                              {{"field", "note"}, {"type", "nominal"}, {"title", "note"}}});
  json layers = json::array();
  layers.push_back({{"mark", {{"type", "line"}, {"interpolate", "step-before"}, {"clip", true}}},
                    {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"order", {{"field", "t"}}}}}});
  layers.push_back(
      {{"mark", {{"type", "point"}, {"filled", true}, {"size", 30}, {"clip", true}}},
       {"encoding",
        {{"x", x},
         {"y", y},
         {"color", color},
         {"shape",
          {{"field", "validity"},
           {"type", "nominal"},
           {"title", "window"},
           {"scale", {{"domain", {"valid", "invalid", "move"}}, {"range", {"circle", "cross", "triangle-up"}}}}}},
         {"tooltip", tooltip}}}});
  if (rule_y) {
    layers.push_back({{"data", {{"values", {{{"y", *rule_y}, {"label", rule_label}}}}}},
                      {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#333"}}},
                      {"encoding", {{"y", {{"field", "y"}, {"type", "quantitative"}}}}}});
  }
  return {{"title", title},
          {"width", 420},
          {"height", 180},
          {"data", {{"values", rows}}},
          {"layer", layers},
          {"config", {{"legend", {{"orient", "bottom"}, {"direction", "vertical"}, {"columns", 2}}}}}};
}

// Each mode's first run (alone, each static set, the managed set), its windows drawn over time.
void Timeline(const Page& page, std::ostream& body, ChartSpecs* specs) {
  std::map<std::string, const analysis::RunData*> first;
  std::vector<std::string> order;
  for (const auto& r : page.d.runs) {
    if (r.windows.empty()) continue;
    const std::string mode = r.corunner_set.empty() ? "alone" : r.corunner_set;
    if (first.emplace(mode, &r).second) order.push_back(mode);
  }
  if (order.empty()) return;
  json load = json::array(), tail = json::array(), allocation = json::array();
  std::optional<double> target;
  for (const std::string& mode : order) {
    for (const auto& w : first[mode]->windows) {
      const std::string validity = w.valid ? "valid" : "invalid";
      if (w.target_us) target = w.target_us;
      if (w.load_qps && mode == order.front()) {
        load.push_back({{"t", w.end_s}, {"y", *w.load_qps}, {"series", "schedule"}, {"validity", "valid"}, {"note", ""}});
      }
      if (w.tail_us) {
        tail.push_back({{"t", w.end_s},
                        {"y", std::max(*w.tail_us, 0.01)},
                        {"series", mode},
                        {"validity", validity},
                        {"note", w.valid ? w.note : w.invalid_because}});
      }
      for (const auto& [tenant, knobs] : w.allocation) {
        for (const auto& [knob, l] : knobs) {
          std::string moved;
          for (const auto& a : w.actions) {
            if (a.tenant == tenant && a.knob == knob) moved += (moved.empty() ? "" : "; ") + a.reason;
          }
          allocation.push_back({{"t", w.end_s},
                                {"y", l.level},
                                {"series", mode + ": " + tenant + " " + knob},
                                {"validity", moved.empty() ? validity : "move"},
                                {"note", moved.empty() ? l.text : l.text + " — " + moved}});
        }
      }
    }
  }
  body << "<p>Each mode's first run over time: the schedule's load, the subject's tail in each window (crosses: "
          "invalid windows), and in the managed run each resource's level (its unit: a quota in CPUs, the "
          "class 0 idle / 1 normal; triangles: a move, its reason in the tooltip).</p>\n<div class=\"panels\">\n";
  Panel lp{"manager-load", "load over time", nullptr, "", load.size()};
  if (load.empty()) {
    lp.unavailable = "no window carries its load";
  } else {
    lp.spec = TimeSpec(lp.title, load, "target load (QPS)", false, "load");
  }
  Panel tp{"manager-tail", "tail over time against QoS", nullptr, "", tail.size()};
  if (tail.empty()) {
    tp.unavailable = "no window had an answer";
  } else {
    tp.spec = TimeSpec(tp.title, tail, "tail (µs, log)", true, "mode", target, "QoS target");
  }
  Panel ap{"manager-allocation", "the managed allocation over time", nullptr, "", allocation.size()};
  if (allocation.empty()) {
    ap.unavailable = "no managed run stored an allocation";
  } else {
    ap.spec = TimeSpec(ap.title, allocation, "level", false, "resource");
  }
  body << PanelHtml(lp, specs) << PanelHtml(tp, specs) << PanelHtml(ap, specs) << "</div>\n";
}

}  // namespace

void ManagerSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const analysis::ManagerComparison& c = page.a.manager;
  if (c.modes.empty()) return;
  body << "<h2>Modes under the load schedule</h2>\n<p>Each mode ran the same schedule; a window meets QoS "
          "when it is valid and its tail is within the target. A mode is on the Pareto front when no other "
          "meets QoS in a larger share of its windows and gives the neighbours more.</p>\n"
          "<table><tr><th>mode</th><th>runs</th><th>windows</th><th>valid</th><th>met QoS</th>"
          "<th>neighbours CPU-s/s</th><th>EMU</th><th>settling</th><th>moves</th><th>Pareto</th></tr>\n";
  for (const auto& m : c.modes) {
    body << "<tr><td>" << Esc(m.mode) << (m.managed ? " (managed)" : "") << "</td><td>" << m.runs << "</td><td>"
         << m.windows << "</td><td>" << m.valid << "</td><td>"
         << (m.met_share ? FormatNumber(*m.met_share * 100) + " %" : Esc(m.met_note)) << "</td><td>"
         << (m.neighbour_throughput ? FormatNumber(*m.neighbour_throughput) : Esc(m.neighbour_note)) << "</td><td>"
         << (m.emu ? FormatNumber(*m.emu) : Esc(m.emu_note)) << "</td><td>"
         << (m.settling_s ? FormatNumber(*m.settling_s) + " s" : std::string("—")) << "</td><td>"
         << (m.managed ? std::to_string(m.actions) : std::string("—")) << "</td><td>" << (m.pareto ? "yes" : "no")
         << "</td></tr>\n";
  }
  body << "</table>\n<p>" << Esc(c.verdict) << "</p>\n";
  Timeline(page, body, specs);
}

}  // namespace ream::report
