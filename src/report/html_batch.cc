// A batch subject's view (analysis/batch.h): run time, throughput and CPU time per run
// against copies, one line per partition, the slowdown each knob causes against the unlimited
// partition, the verdict per resource and the category with its evidence. Only a batch
// subject's page has it, and then in place of the server's sections.
#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {

using nlohmann::json;

namespace {

std::string FigureHtml(const analysis::BatchFigure& f) {
  if (!f.mean) return "<span class=\"muted\">unavailable (" + Esc(f.unavailable) + ")</span>";
  std::string s = FormatNumber(*f.mean);
  if (f.low) s += " [" + FormatNumber(*f.low) + ", " + FormatNumber(*f.high) + "]";
  return s;
}

std::string MetricHtml(const analysis::Metric& m, double scale, const std::string& unit) {
  if (!m.has()) return "<span class=\"muted\">unavailable (" + Esc(m.unavailable) + ")</span>";
  return FormatNumber(*m.value * scale) + " " + unit;
}

}  // namespace

void BatchSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  if (!page.a.batch) return;
  const analysis::BatchAnalysis& b = *page.a.batch;
  body << "<h2 id=\"batch\">Batch program " << Esc(b.program) << "</h2>\n";
  body << "<p>Each point ran its copies concurrently in the partition's sandbox over the window, each copy started "
          "again when it ended. Intervals at "
       << FormatNumber(b.confidence * 100)
       << " % over the repetitions (Student t). Contention is judged by CPU time per run: wall time on a shared "
          "CPU mixes in the time a copy waited for it.</p>\n";
  json run_rows = json::array(), tput_rows = json::array(), cpu_rows = json::array();
  for (const auto& g : b.groups) {
    for (const auto& l : g.levels) {
      auto add = [&](json& rows, const analysis::BatchFigure& f) {
        if (f.mean) rows.push_back({{"series", g.key}, {"qps", l.copies}, {"y", *f.mean}, {"validity", "valid"}, {"why", ""}});
      };
      add(run_rows, l.run_time_s);
      add(tput_rows, l.runs_per_min);
      add(cpu_rows, l.cpu_s_per_run);
    }
  }
  Panel run{"batch-run-time", "run time against copies", nullptr, "", run_rows.size()};
  Panel tput{"batch-throughput", "throughput against copies", nullptr, "", tput_rows.size()};
  Panel cpu{"batch-cpu-per-run", "CPU time per run against copies", nullptr, "", cpu_rows.size()};
  auto fill = [&](Panel& p, const json& rows, const std::string& y) {
    if (rows.empty()) p.unavailable = "no level completed a run";
    else p.spec = LineSpec(p.title, rows, y, false, LoadAxis::kCopies);
  };
  fill(run, run_rows, "mean run time (s)");
  fill(tput, tput_rows, "runs per minute");
  fill(cpu, cpu_rows, "CPU seconds per run");
  body << "<div class=\"panels\">\n" << PanelHtml(run, specs) << PanelHtml(tput, specs) << PanelHtml(cpu, specs)
       << "</div>\n";
  body << "<table id=\"batch-levels\"><tr><th>scenario / partition</th><th>copies</th><th>repetitions</th>"
          "<th>run time (s)</th><th>runs / min</th><th>CPU s / run</th><th>memory peak</th><th>disk / run</th>"
          "<th>memory bandwidth</th></tr>\n";
  for (const auto& g : b.groups) {
    for (const auto& l : g.levels) {
      body << "<tr class=\"" << (l.failed ? "invalid" : "valid") << "\"><td>" << Esc(g.key) << "</td><td class=\"num\">"
           << FormatNumber(l.copies) << "</td><td class=\"num\">" << l.repetitions
           << (l.failed ? " (" + std::to_string(l.failed) + " failed)" : "") << "</td><td>" << FigureHtml(l.run_time_s)
           << "</td><td>" << FigureHtml(l.runs_per_min) << "</td><td>" << FigureHtml(l.cpu_s_per_run) << "</td><td>"
           << MetricHtml(l.memory_peak_bytes, 1.0 / 1048576, "MiB") << "</td><td>"
           << MetricHtml(l.disk_bytes_per_run, 1e-6, "MB") << "</td><td>" << MetricHtml(l.membw_bps, 1e-6, "MB/s")
           << "</td></tr>\n";
      for (const auto& f : l.failures) {
        body << "<tr class=\"invalid\"><td colspan=\"9\">" << Esc(f) << "</td></tr>\n";
      }
    }
  }
  body << "</table>\n";

  body << "<h3 id=\"batch-knobs\">Against each knob</h3>\n";
  if (b.slowdowns.empty()) {
    body << "<p class=\"muted\">No limited partition was measured beside an unlimited one: no slowdown.</p>\n";
  } else {
    json rows = json::array();
    for (const auto& s : b.slowdowns) {
      if (s.run_time.mean) {
        rows.push_back({{"series", s.group}, {"qps", s.copies}, {"y", *s.run_time.mean}, {"validity", "valid"}, {"why", ""}});
      }
    }
    Panel slow{"batch-slowdown", "run time slowdown against the unlimited partition", nullptr, "", rows.size()};
    if (rows.empty()) slow.unavailable = "no slowdown could be computed";
    else slow.spec = LineSpec(slow.title, rows, "run time, limited / unlimited", false, LoadAxis::kCopies, "",
                              1 + analysis::kBatchSensitivity,
                              "sensitive above × " + FormatNumber(1 + analysis::kBatchSensitivity));
    body << "<div class=\"panels\">\n" << PanelHtml(slow, specs) << "</div>\n";
    body << "<table id=\"batch-slowdown\"><tr><th>partition</th><th>copies</th><th>run time ×</th>"
            "<th>CPU time per run ×</th><th>throughput ÷</th></tr>\n";
    for (const auto& s : b.slowdowns) {
      body << "<tr><td>" << Esc(s.group) << "</td><td class=\"num\">" << FormatNumber(s.copies) << "</td><td>"
           << FigureHtml(s.run_time) << "</td><td>" << FigureHtml(s.cpu_time) << "</td><td>" << FigureHtml(s.throughput)
           << "</td></tr>\n";
    }
    body << "</table>\n";
  }
  body << "<table id=\"batch-sensitivity\"><tr><th>resource</th><th>verdict</th><th>judged by</th><th>evidence</th>"
          "</tr>\n";
  for (const auto& s : b.sensitivity) {
    body << "<tr><td>" << Esc(s.resource) << "</td><td>" << Esc(s.verdict) << "</td><td>" << Esc(s.judged_by)
         << "</td><td>" << Esc(s.evidence) << "</td></tr>\n";
  }
  body << "</table>\n";
  body << "<h3 id=\"batch-category\">Category: "
       << (b.category.name.empty() ? "unavailable" : Esc(b.category.name)) << (b.category.tentative ? " (tentative)" : "")
       << "</h3>\n";
  if (!b.category.unavailable.empty()) body << "<p class=\"muted\">" << Esc(b.category.unavailable) << "</p>\n";
  body << "<ul>\n";
  for (const auto& e : b.category.evidence) body << "<li>" << Esc(e) << "</li>\n";
  body << "</ul>\n";
}

}  // namespace ream::report
