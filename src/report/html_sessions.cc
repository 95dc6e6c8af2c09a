// A sessions sweep's own view: per level the chunks requested and completed, the
// share that missed their play-out deadline (the workload's QoS figure, the threshold drawn),
// and the bytes per second delivered. Only pages of a sessions sweep have it.
#include <algorithm>

#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {

using nlohmann::json;

void SessionsSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const analysis::ExperimentAnalysis& a = page.a;
  if (a.load_axis != LoadAxis::kSessions) return;
  bool any = false;
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) any = any || p.session.has_value();
  }
  if (!any) return;  // a sessions sweep stored without session load's figures
  body << "<h2 id=\"sessions-view\">Sessions</h2>\n";
  body << "<p>Each session fetches consecutive chunks of a video on an absolute schedule, one chunk per chunk "
          "play time; a chunk misses its play-out deadline when its last byte arrives later than its scheduled "
          "request plus its play time"
       << (a.qos.target_us ? " (" + FormatNumber(*a.qos.target_us / 1e3) + " ms)" : std::string())
       << ", or never. A level meets QoS when at most " << FormatNumber(analysis::kSessionMaxDeadlineMiss * 100)
       << " % of its chunks miss it.</p>\n";
  json miss_rows = json::array(), bytes_rows = json::array();
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      if (p.failed || !p.session) continue;
      std::string why;
      for (const auto& r : p.reasons) why += (why.empty() ? "" : "; ") + r;
      miss_rows.push_back({{"series", g.key},
                           {"qps", p.target_load},
                           {"y", p.session->deadline_miss_ratio * 100},
                           {"validity", p.valid ? "valid" : "invalid"},
                           {"why", why}});
      bytes_rows.push_back({{"series", g.key},
                            {"qps", p.target_load},
                            {"y", p.session->throughput_bytes_per_s / 1e6},
                            {"validity", p.valid ? "valid" : "invalid"},
                            {"why", why}});
    }
  }
  Panel miss{"deadline-miss", "chunks missing their play-out deadline", nullptr, "", miss_rows.size()};
  Panel bytes{"stream-throughput", "chunk bytes delivered", nullptr, "", bytes_rows.size()};
  if (miss_rows.empty()) {
    miss.unavailable = bytes.unavailable = "no point carries session figures";
  } else {
    miss.spec = LineSpec(miss.title, miss_rows, "deadline misses (% of chunks)", false, a.load_axis, "",
                         analysis::kSessionMaxDeadlineMiss * 100,
                         "QoS " + FormatNumber(analysis::kSessionMaxDeadlineMiss * 100) + " %");
    bytes.spec = LineSpec(bytes.title, bytes_rows, "MB/s received by the sessions", false, a.load_axis);
  }
  body << "<div class=\"panels\">\n" << PanelHtml(miss, specs) << PanelHtml(bytes, specs) << "</div>\n";
  body << "<table id=\"sessions\"><tr><th>group</th><th>sessions</th><th>chunks requested</th><th>completed</th>"
          "<th>deadline misses</th><th>meets QoS</th><th>MB/s</th><th>chunk p" << FormatNumber(a.percentile)
       << " (ms)</th></tr>\n";
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      if (p.failed || !p.session) continue;
      const auto& s = *p.session;
      body << "<tr class=\"" << (p.valid ? "valid" : "invalid") << "\"><td>" << Esc(g.key) << "</td><td class=\"num\">"
           << FormatNumber(p.target_load) << "</td><td class=\"num\">" << FormatNumber(s.chunks_requested)
           << "</td><td class=\"num\">" << FormatNumber(s.chunks_completed) << "</td><td class=\"num\">"
           << FormatNumber(s.deadline_miss_ratio * 100) << " %</td><td>"
           << (p.meets_qos ? (*p.meets_qos ? "yes" : "no") : "— (invalid)") << "</td><td class=\"num\">"
           << FormatNumber(s.throughput_bytes_per_s / 1e6) << "</td><td class=\"num\">" << FormatNumber(p.tail_us / 1e3)
           << "</td></tr>\n";
    }
  }
  body << "</table>\n";
}

}  // namespace ream::report
