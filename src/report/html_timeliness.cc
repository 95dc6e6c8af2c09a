// The generator's own timeliness: the seed's validity criterion with its
// picture — each point's lateness against the load, the tolerance drawn in — why the late
// requests were late, the host's floor measured at the start of the run beside them, and
// whether the CPUs were kept awake. A reader can tell a generator that fell behind (its own
// work, slow calls) from a host that did (stalls at the floor's level).
#include <algorithm>
#include <set>

#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/reporter.h"

namespace ream::report {
namespace {

using nlohmann::json;

// The worst CPU's floor, as "0.61 % (CPU 1)", and its tolerance; "" when not measured.
std::pair<std::string, std::optional<double>> Floor(const analysis::ExperimentData& d, std::string* line) {
  const json& env = d.environment;
  if (!env.contains("timing_floor") || !env["timing_floor"].is_object()) {
    *line = "not measured (experiments stored before ream measured it)";
    return {"", std::nullopt};
  }
  const json& t = env["timing_floor"];
  if (t.contains("unavailable")) {
    *line = "unavailable: " + t["unavailable"].get<std::string>();
    return {"", std::nullopt};
  }
  double worst = -1;
  int worst_cpu = -1;
  std::string per;
  for (const auto& c : t.value("cpus", json::array())) {
    double f = c.value("late_fraction", 0.0);
    int cpu = c.value("cpu", -1);
    per += (per.empty() ? "" : ", ") + ("CPU " + std::to_string(cpu) + " " + FormatNumber(f * 100) + " %");
    if (f > worst) {
      worst = f;
      worst_cpu = cpu;
    }
  }
  std::optional<double> tol;
  if (t.contains("tolerance_us") && t["tolerance_us"].is_number()) tol = t["tolerance_us"].get<double>();
  *line = "a spin loop pinned to each CPU for " + FormatNumber(t.value("duration_s", 0.0)) +
          " s at the start found this share of instants more than " + FormatNumber(tol.value_or(0)) +
          " µs late: " + per + " — the best any generator could be on this host then";
  if (worst < 0) return {"", tol};
  return {FormatNumber(worst * 100) + " % (CPU " + std::to_string(worst_cpu) + ")", tol};
}

}  // namespace

void TimelinessSection(const Page& page, std::ostream& body, ChartSpecs* specs) {
  const analysis::ExperimentAnalysis& a = page.a;
  body << "<h2>Generator timeliness</h2>\n";
  std::string floor_line;
  auto [floor, tolerance] = Floor(page.d, &floor_line);
  std::set<std::string> awake, awake_workload;
  bool any_point = false;
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      any_point = true;
      // How, where the point says it (the generator's CPUs, by the kernel's polling or pollers).
      awake.insert(p.keep_awake_how.empty() || p.keep_awake_cpus.empty() ? p.keep_awake_cpus : p.keep_awake_how);
      if (!p.keep_awake_workload.empty()) awake_workload.insert(p.keep_awake_workload);
    }
  }
  if (!any_point) {
    body << "<p>No point was measured.</p>\n";
    return;
  }
  body << "<p>A point is valid when at least " << FormatNumber(page.d.timely_threshold * 100)
       << " % of its requests left within the tolerance of their scheduled instant (the seed's timely ratio)."
          " Host floor: "
       << Esc(floor_line) << ".</p>\n";
  std::string awake_text;
  for (const auto& c : awake) {
    const bool how = c.find("kept awake") != std::string::npos;
    awake_text += (awake_text.empty() ? "" : "; ") + (c.empty() ? std::string("off") : how ? c : "CPUs " + c);
  }
  body << "<p id=\"keep-awake\">Keep-awake, the generator's CPUs: " << Esc(awake_text)
       << (awake.count("") ? " (off: at low load both sides may pay a CPU's wake-up per request; "
                             "<code>--keep-awake</code> keeps the run's CPUs out of idle)"
                           : "")
       << ".</p>\n";
  for (const auto& w : awake_workload) body << "<p class=\"keep-awake-workload\">" << Esc(w) << ".</p>\n";

  json rows = json::array();
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      if (p.failed || !p.lateness_p99_us) continue;
      std::string why;
      for (const auto& r : p.reasons) why += (why.empty() ? "" : "; ") + r;
      rows.push_back({{"series", g.key},
                      {"qps", p.target_load},
                      {"y", std::max(*p.lateness_p99_us, 0.01)},
                      {"validity", p.valid ? "valid" : "invalid"},
                      {"why", why}});
    }
  }
  Panel panel{"lateness", "generator lateness p99 against load", nullptr, "", rows.size()};
  if (rows.empty()) {
    panel.unavailable = "no point has a lateness figure (stored before ream recorded it)";
  } else {
    panel.spec = LineSpec(panel.title, rows, "lateness p99 (µs, log)", true, a.load_axis, "", tolerance,
                          "tolerance " + FormatNumber(tolerance.value_or(0)) + " µs");
  }
  body << "<div class=\"panels\">\n" << PanelHtml(panel, specs) << "</div>\n";

  static const char* kCauses[] = {"stall", "slow_syscall", "late_wakeup", "busy", "reconnecting"};
  body << "<table id=\"timeliness\"><tr><th>group</th><th>target " << page.load_unit
       << "</th><th>timely</th><th>late</th><th>host floor</th>"
          "<th>stall</th><th>slow syscall</th><th>late wake-up</th><th>own work</th><th>reconnecting</th>"
          "<th>lateness p50 (µs)</th><th>p99 (µs)</th></tr>\n";
  for (const auto& g : a.groups) {
    for (const auto& p : g.points) {
      if (p.failed) continue;
      body << "<tr class=\"" << (p.valid ? "valid" : "invalid") << "\"><td>" << Esc(g.key) << "</td><td class=\"num\">"
           << FormatNumber(p.target_load) << "</td><td class=\"num\">" << FormatNumber(p.timely_ratio * 100)
           << " %</td><td class=\"num\">" << FormatNumber((1 - p.timely_ratio) * 100) << " %</td><td class=\"num\">"
           << (floor.empty() ? "—" : Esc(floor)) << "</td>";
      for (const char* c : kCauses) {
        auto it = p.late_shares.find(c);
        body << "<td class=\"num\">" << (it == p.late_shares.end() ? "—" : FormatNumber(it->second * 100) + " %")
             << "</td>";
      }
      body << "<td class=\"num\">" << (p.lateness_p50_us ? FormatNumber(*p.lateness_p50_us) : "—")
           << "</td><td class=\"num\">" << (p.lateness_p99_us ? FormatNumber(*p.lateness_p99_us) : "—")
           << "</td></tr>\n";
    }
  }
  body << "</table>\n<p class=\"note\">Causes, as shares of the point's requests (they add up to its late share): "
          "stall — the generator's thread was not running (its clock jumped between two reads, or it was "
          "descheduled during a call); slow syscall — a send, read or poll that took long; late wake-up — a "
          "sleep that returned after it should have; own work — encoding, parsing and bookkeeping; "
          "reconnecting — waiting for a connection the server closed to be replaced.</p>\n";
}

}  // namespace ream::report
