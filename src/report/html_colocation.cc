// Shared servers on the page (issue 39): per co-runner set, the subject's capacity alone and
// together with their intervals and the verdict, its tail against load alone and together on
// one panel, the levels with slack and EMU, and each co-runner's throughput alone and together.
// Only a page of an experiment with [[corunner]]s has it.
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
    char ratio[32] = "—";
    if (g.capacity_ratio) std::snprintf(ratio, sizeof ratio, "%.2f×", *g.capacity_ratio);
    if (g.capacity_ratio_below) std::snprintf(ratio, sizeof ratio, "&lt; %.2f×", *g.capacity_ratio_below);
    body << "<tr><td>" << Esc(g.set) << "</td><td>" << Esc(g.group_key) << "</td><td>"
         << Fig("colocation_alone_capacity", g.alone_capacity, g.set + "/" + g.group_key) << "</td><td>"
         << Interval(g.alone_low, g.alone_high) << "</td><td>"
         << Fig("colocation_together_capacity", g.together_capacity, g.set + "/" + g.group_key)
         << (g.together_upper_bound && !g.together_capacity ? " (&lt; " + FormatNumber(*g.together_upper_bound) + ")" : "")
         << "</td><td>"
         << Interval(g.together_low, g.together_high) << "</td><td>" << ratio << "</td><td>" << Esc(g.verdict)
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
           << (l.emu ? FormatNumber(*l.emu) : Esc(l.emu_note.empty() ? "—" : l.emu_note)) << "</td><td>"
           << Esc(l.together_reasons.empty() ? "" : l.together_reasons.front()) << "</td></tr>\n";
    }
    body << "</table>\n<table class=\"colocation-corunners\"><tr><th>co-runner</th><th>sched</th><th>CPUs</th>"
            "<th>throughput measure</th><th>alone</th><th>together</th><th>ratio</th><th>note</th></tr>\n";
    for (const auto& c : g.corunners) {
      char ratio[32] = "—";
      if (c.ratio) std::snprintf(ratio, sizeof ratio, "%.2f×", *c.ratio);
      body << "<tr><td>" << Esc(c.name) << "</td><td>" << Esc(c.sched) << "</td><td>" << Esc(c.cpus) << "</td><td>"
           << Esc(c.measure) << "</td><td>" << Cell(c.alone) << "</td><td>" << Cell(c.together) << "</td><td>"
           << ratio << "</td><td>" << Esc(c.note) << "</td></tr>\n";
    }
    body << "</table>\n";
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

}  // namespace ream::report
