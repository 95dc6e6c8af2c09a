// `ream analyze`: the analysis as aligned console tables, in the order of the seed's
// findings: the QoS target, Table 1 (load range), Table 2 (QPS under QoS), scaling, the
// category with its evidence, sensitivity, the queueing model (Table 5.1) and the
// recommendation. Each section is a Text* function, called from the table of report
// sections (sections.cc).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include "platform/text.h"
#include "report/reporter.h"
#include "report/sections.h"

namespace ream::report {
namespace {

using analysis::ExperimentAnalysis;
using analysis::GroupAnalysis;

class AlignedTable {
 public:
  explicit AlignedTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(std::ostream& os) const {
    std::vector<size_t> w;
    for (const auto& r : rows_) {
      if (w.size() < r.size()) w.resize(r.size(), 0);
      for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], Width(r[i]));
    }
    for (const auto& r : rows_) {
      std::string line = "  ";
      for (size_t i = 0; i < r.size(); ++i) {
        line += r[i];
        if (i + 1 < r.size()) line += std::string(w[i] - Width(r[i]) + 2, ' ');
      }
      os << line << "\n";
    }
  }

 private:
  // Display width: UTF-8 continuation bytes take no column.
  static size_t Width(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string Opt(const std::optional<double>& v, const std::string& unit = "") {
  return v ? FormatNumber(*v) + unit : "—";
}

std::string CapacityText(const analysis::Capacity& c) {
  if (c.qps) return (c.lower_bound ? "≥ " : "") + FormatNumber(*c.qps);
  if (c.upper_bound) return "< " + FormatNumber(*c.upper_bound);
  return "—";
}

std::string RangeText(const analysis::Capacity& c) {
  if (c.low && c.high) return "[" + FormatNumber(*c.low) + ", " + FormatNumber(*c.high) + "]";
  if (c.low) return "[" + FormatNumber(*c.low) + ", —]";
  return "—";
}

std::string RatioText(const analysis::Ratio& r) {
  if (r.value) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f×", *r.value);
    return b;
  }
  return r.status;
}

std::string Percent(const std::optional<double>& v) {
  if (!v) return "—";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", *v * 100);
  return b;
}

std::string Interval(const std::optional<double>& low, const std::optional<double>& high) {
  if (low && high) return "[" + FormatNumber(*low) + ", " + FormatNumber(*high) + "]";
  return "—";
}

}  // namespace

// Shared servers: per co-runner set, the subject's capacity alone and together with their
// intervals, its tail level by level with the slack and the EMU, and each co-runner's
// throughput alone and together (analysis/colocation.h).
void TextColocation(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string &u = page.u, &upper = page.upper, &pct = page.pct;
  if (a.colocation.empty() && a.colocation_note.empty()) return;
  os << "Co-location — the subject alone and beside each co-runner set (" << a.colocation_note << ")\n";
  AlignedTable t({"CO-RUNNERS", "SCENARIO / PARTITION", upper + " UNDER QoS ALONE", "INTERVAL",
                  upper + " UNDER QoS TOGETHER", "INTERVAL", "RATIO", "VERDICT"});
  for (const auto& g : a.colocation) {
    auto cap = [](const std::optional<double>& v, bool lower, const std::optional<double>& upper) {
      return v ? (lower ? "≥ " : "") + FormatNumber(*v) : upper ? "< " + FormatNumber(*upper) : std::string("—");
    };
    t.Add({g.set, g.group_key, cap(g.alone_capacity, g.alone_lower_bound, g.alone_upper_bound), Interval(g.alone_low, g.alone_high),
           cap(g.together_capacity, g.together_lower_bound, g.together_upper_bound), Interval(g.together_low, g.together_high),
           BoundedText(g.capacity_ratio, Times), g.verdict});
  }
  t.Print(os);
  for (const auto& g : a.colocation) {
    if (!g.capacity_ratio.value && !g.capacity_ratio.withheld.empty()) {
      os << "  " << g.set << " on " << g.group_key << ": ratio withheld: " << g.capacity_ratio.withheld << "\n";
    }
  }

  for (const auto& g : a.colocation) {
    os << "\n  " << g.set << " on " << g.group_key << ":\n";
    if (!g.unavailable.empty()) os << "    " << g.unavailable << "\n";
    if (!g.together_status.empty()) os << "    capacity together: " << g.together_status << "\n";
    AlignedTable tl({u, pct + " ALONE (us)", pct + " TOGETHER (us)", "p99 ALONE", "p99 TOGETHER", "MEETS QoS",
                     "SLACK", "EMU"});
    for (const auto& l : g.levels) {
      std::string meets = l.together_meets ? (*l.together_meets ? "yes" : "no")
                          : l.together_certain_miss ? "no (invalid; p" + FormatNumber(a.percentile) + " from send " +
                                                          FormatNumber(*l.together_from_send_tail_us) + " > LQoS)"
                                                    : (l.together_valid ? "—" : "invalid");
      tl.Add({FormatNumber(l.load), Opt(l.alone_tail_us), Opt(l.together_tail_us), Opt(l.alone_p99_us),
              Opt(l.together_p99_us), meets, Percent(l.slack), BoundedText(l.emu, FormatNumber)});
    }
    tl.Print(os);
    std::vector<std::string> emu_withheld;
    for (const auto& l : g.levels) {
      if (!l.emu.value && std::find(emu_withheld.begin(), emu_withheld.end(), l.emu.withheld) == emu_withheld.end()) {
        emu_withheld.push_back(l.emu.withheld);
        os << "    EMU withheld: " << l.emu.withheld << "\n";
      }
    }
    for (const auto& l : g.levels) {
      if (!l.together_valid && !l.together_reasons.empty()) {
        os << "    " << FormatNumber(l.load) << " " << u << " together invalid: " << l.together_reasons.front() << "\n";
      }
    }
    AlignedTable tc({"CO-RUNNER", "SCHED", "CPUS", "THROUGHPUT", "ALONE", "TOGETHER", "RATIO"});
    for (const auto& c : g.corunners) {
      char ratio[32] = "—";
      if (c.ratio) std::snprintf(ratio, sizeof ratio, "%.2f×", *c.ratio);
      tc.Add({c.name, c.sched, c.cpus, ToString(c.unit), Opt(c.alone), Opt(c.together), ratio});
    }
    tc.Print(os);
    for (const auto& c : g.corunners) {
      if (!c.note.empty()) os << "    " << c.name << ": " << c.note << "\n";
    }
    // Co-runners under a load of their own ([corunner.load]): their tail, alone and beside the
    // subject, each window judged by its own generator's validity rule.
    bool loaded = false;
    for (const auto& c : g.corunners) loaded = loaded || c.loaded;
    if (loaded) {
      AlignedTable tt({"LOADED CO-RUNNER", "ITS QPS", "p95 ALONE (us)", "p95 BESIDE THE SUBJECT (us)", "VALID WINDOWS"});
      for (const auto& c : g.corunners) {
        if (!c.loaded) continue;
        tt.Add({c.name, FormatNumber(c.load_qps), Opt(c.alone_p95_us), Opt(c.together_p95_us),
                std::to_string(c.together_valid_windows) + " of " + std::to_string(c.together_windows)});
      }
      tt.Print(os);
      for (const auto& c : g.corunners) {
        if (c.loaded && !c.together_invalid_reasons.empty()) {
          os << "    " << c.name << " invalid beside the subject: " << c.together_invalid_reasons.front() << "\n";
        }
      }
    }
  }
  os << "  EMU (Heracles' effective machine utilization) = load / capacity alone + Σ co-runner throughput together / "
        "alone; slack = (LQoS − "
     << pct << " together) / LQoS.\n\n";
}

namespace {

// The co-location matrix (analysis/interference.h): subjects × co-runner sets, each cell the
// capacity together / alone and QoS met at the load, predicted / measured; then each workload's
// tolerated or caused intensity per source.
void WriteMatrix(const analysis::ColocationMatrix& m, std::ostream& os) {
  os << "  Co-location matrix (" << m.note << "); a cell: predicted / measured, 'ok' meets QoS, 'MISS' does not:\n";
  std::vector<std::string> head{"SUBJECT"};
  head.insert(head.end(), m.sets.begin(), m.sets.end());
  AlignedTable t(head);
  auto side = [](const analysis::Bounded& r, const std::optional<bool>& meets) {
    std::string s = BoundedText(r, SharePercent);
    if (meets) s += *meets ? " ok" : " MISS";
    return s;
  };
  for (const auto& subject : m.subjects) {
    std::vector<std::string> row{subject};
    for (const auto& c : m.cells) {
      if (c.subject != subject) continue;
      row.push_back(side(c.predicted_ratio, c.predicted_meets) + " / " + side(c.measured_ratio, c.measured_meets));
    }
    t.Add(row);
  }
  t.Print(os);
  if (m.heat.empty()) return;
  os << "  Intensity tolerated (a subject) and caused (a co-runner set, scored by the reporter), % of each source's "
        "dial:\n";
  std::vector<std::string> hh{"WORKLOAD", "ROLE"};
  hh.insert(hh.end(), m.sources.begin(), m.sources.end());
  AlignedTable th(hh);
  for (const auto& h : m.heat) {
    std::vector<std::string> row{h.workload, h.role + (h.by.empty() ? "" : " (by " + h.by + ")")};
    for (size_t i = 0; i < h.values.size(); ++i) {
      row.push_back(h.values[i] ? (h.at_least[i] ? "≥ " : "") + FormatNumber(*h.values[i]) : "—");
    }
    th.Add(row);
  }
  th.Print(os);
}
}  // namespace

// The sensitivity profile (analysis/interference.h): per source, the subject's QPS under QoS
// and its tail at the fixed load against the intensity, the tolerated intensity and the verdict.
void TextInterference(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string &u = page.u, &upper = page.upper, &pct = page.pct;
  if (a.interference.empty() && a.reporter.empty()) return;
  os << "Interference — sensitivity profile (Bubble-Up's curve, iBench's tolerated intensity; 0 % is the subject "
        "alone)\n";
  for (const auto& p : a.interference) {
    os << "  " << p.source << " on " << p.group_key << ", at "
       << (p.load ? FormatNumber(*p.load) + " " + u + " (" + p.load_how + ")" : p.load_how) << ":\n";
    AlignedTable t({"INTENSITY", upper + " UNDER QoS", "INTERVAL", pct + " AT THE LOAD (us)", "MEETS QoS", "NOTE"});
    for (const auto& q : p.points) {
      std::string cap = q.capacity ? (q.lower_bound ? "≥ " : "") + FormatNumber(*q.capacity)
                        : q.upper_bound ? "< " + FormatNumber(*q.upper_bound)
                                        : std::string("—");
      t.Add({FormatNumber(q.intensity) + " %", cap, Interval(q.low, q.high), Opt(q.tail_us),
             q.meets ? (*q.meets ? "yes" : "no") : "—", q.note});
    }
    t.Print(os);
    os << "    tolerated: " << (p.tolerated ? (p.at_least ? "≥ " : "") + FormatNumber(*p.tolerated) + " %" : "—")
       << (p.tolerated_note.empty() ? "" : " (" + p.tolerated_note + ")") << "\n";
    os << "    verdict: " << p.verdict << " — " << p.evidence << "\n";
  }
  if (!a.pressure.empty()) {
    os << "  Pressure caused (Bubble-Up's score: the intensity of each source that hurts the subject, the reporter, "
          "as much as the set does at the curve's load):\n";
    AlignedTable tp({"CO-RUNNERS", "SCENARIO / PARTITION", "SOURCE", "SCORE (TAIL)", "SCORE (" + upper + " UNDER QoS)",
                     "HOW"});
    auto score = [](const std::optional<double>& v, bool at_least) {
      return v ? (at_least ? "≥ " : "") + FormatNumber(*v) + " %" : std::string("—");
    };
    for (const auto& p : a.pressure) {
      for (const auto& sc : p.scores) {
        tp.Add({p.set, p.group_key, sc.source, score(sc.intensity, sc.at_least),
                score(sc.capacity_intensity, sc.capacity_at_least), sc.note + "; " + sc.capacity_note});
      }
    }
    tp.Print(os);
  }
  if (!a.reporter.empty()) {
    os << "  Predicted beside the sets experiment '" << a.reporter
       << "' scored (its subject the reporter; this subject's curve read at the most damaging source's score):\n";
    if (!a.reporter_note.empty()) os << "    " << a.reporter_note << "\n";
    AlignedTable tq({"CO-RUNNERS", "SCENARIO / PARTITION", "SOURCE", "SCORE (TAIL / CAPACITY)", pct + " PREDICTED", "MEETS",
                     pct + " MEASURED", "MEETS", "CAPACITY PREDICTED", "MEASURED", "ERROR (pp)"});
    auto yn = [](const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "—"; };
    for (const auto& q : a.predictions) {
      auto score = [](const std::optional<double>& v, bool at_least) {
        return v ? (at_least ? "≥ " : "") + FormatNumber(*v) + " %" : std::string("—");
      };
      tq.Add({q.set, q.group_key, q.source.empty() ? "—" : q.source,
              score(q.score, q.score_at_least) + " / " + score(q.capacity_score, q.capacity_score_at_least),
              BoundedText(q.predicted_tail_us, FormatNumber), yn(q.predicted_meets), Opt(q.measured_tail_us),
              yn(q.measured_meets), BoundedText(q.predicted_capacity_ratio, SharePercent),
              BoundedText(q.measured_capacity_ratio, SharePercent), BoundedText(q.capacity_error_pp, FormatNumber)});
    }
    tq.Print(os);
    for (const auto& q : a.predictions) {
      if (!q.note.empty()) os << "    " << q.set << ": " << q.note << "\n";
    }
    if (!a.predictions.empty()) os << "    " << PredictionCheckText(a.prediction_check) << "\n";
    for (const auto& why : a.prediction_check.left_out) os << "      left out: " << why << "\n";
  }
  if (!a.matrix.sets.empty()) WriteMatrix(a.matrix, os);
  os << "  sensitive: misses QoS at the load within the dial, or QPS under QoS at the top intensity lower than alone "
        "beyond both intervals by more than "
     << FormatNumber(analysis::kInterferenceCapacityDrop * 100) << " %.\n\n";
}

// The queueing model (second seed): the fitted queue, its Table 5.1 of the mean and of the
// tail, and the predicted sensitivities beside the measured ones. `ream model` prints this
// alone.
std::string PredictionCheckText(const analysis::PredictionCheck& c) {
  std::string s = "judged: " + std::to_string(c.judged.size()) + " of " + std::to_string(c.measured) +
                  " measured pairs (those whose measured and predicted shares are not bounds)";
  if (c.mean_abs_error_pp) {
    s += "; mean |error| of the predicted share " + FormatNumber(*c.mean_abs_error_pp) + " pp, against " +
         FormatNumber(*c.naive_mean_abs_error_pp) + " pp for the naive guess (every pair at the mean measured share, " +
         FormatNumber(*c.naive_share * 100) + " %)";
  } else {
    s += "; no error: " + c.note;
  }
  if (c.tail_mean_abs_error_pct) {
    s += "; the tail at the curve's load judged on " + std::to_string(c.tail_judged.size()) + " pair(s): mean |error| " +
         FormatNumber(*c.tail_mean_abs_error_pct) + " %, against " + FormatNumber(*c.naive_tail_mean_abs_error_pct) +
         " % for the naive guess (every pair at the mean measured tail, " + FormatNumber(*c.naive_tail_us) + " µs)";
  } else {
    s += "; no tail error: " + c.tail_note;
  }
  s += "; safe / unsafe at QoS predicted as measured: " + std::to_string(c.safe_agree) + " of " +
       std::to_string(c.safe_judged) + " pairs";
  return s;
}

void TextModel(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  auto opt = [](const std::optional<double>& v, double scale = 1) {
    return v ? FormatNumber(*v * scale) : std::string("—");
  };
  os << "Queueing model (delay center D + a CPU queue of c servers, S = S0 + k·o)\n";
  AlignedTable tq({"SCENARIO / PARTITION", "QUEUE", "S us", "S0 us", "SCV", "D us", "X_sat QPS", "HOW"});
  for (const auto& g : a.groups) {
    if (g.failed) continue;
    if (!g.model) {
      tq.Add({g.key, "unavailable: " + g.model_unavailable, "", "", "", "", "", ""});
      continue;
    }
    const auto& m = *g.model;
    tq.Add({g.key, m.queue, FormatNumber(m.demand_s * 1e6), FormatNumber(m.s0_s * 1e6),
            FormatNumber(m.model.scv), FormatNumber(m.delay_s * 1e6), FormatNumber(m.saturation_qps),
            "SCV: " + m.scv_method + "; D: " + m.delay_method});
  }
  tq.Print(os);
  for (bool mean : {true, false}) {
    os << "\nTable 5.1 of the " << (mean ? std::string("mean") : pct)
       << " response time over the operating range (measured vs model)\n";
    AlignedTable tm({"SCENARIO / PARTITION", "RANGE", "CURVE", "SLOPE us/QPS", "INTERCEPT us", "BASE us @ QPS", "R²",
                     "MEAN |REL ERR|", "MAX |REL ERR|"});
    std::vector<std::string> reasons;
    for (const auto& g : a.groups) {
      if (g.failed || !g.model) continue;
      const auto& m = *g.model;
      const analysis::RegressionTable& t = mean ? m.mean : m.tail;
      std::string range = FormatNumber(m.range_low * 100) + "-" + FormatNumber(m.range_high * 100) + " % CPU, " +
                          std::to_string(t.points) + " pts";
      if (!t.measured) {
        tm.Add({g.key, range, "unavailable (below)", "—", "—", "—", "—", "—", "—"});
        reasons.push_back(g.key + ": " + t.unavailable);
        continue;
      }
      for (bool measured : {true, false}) {
        const auto& r = measured ? t.measured : t.modeled;
        std::vector<std::string> cells = {measured ? g.key : "", measured ? range : "", measured ? "measured" : "model"};
        if (r) {
          cells.push_back(FormatNumber(r->fit.slope * 1e6));
          cells.push_back(FormatNumber(r->fit.intercept * 1e6));
          cells.push_back(FormatNumber(r->base_s * 1e6) + " @ " + FormatNumber(t.base_load_qps));
          cells.push_back(FormatNumber(r->fit.r2));
        } else {
          cells.insert(cells.end(), {"—", "—", "—", "—"});
        }
        cells.push_back(measured ? opt(t.mean_abs_relative_error) : "");
        cells.push_back(measured ? opt(t.max_abs_relative_error) : "");
        tm.Add(cells);
      }
    }
    tm.Print(os);
    for (const auto& r : reasons) os << "  " << r << "\n";
  }
  if (!a.predicted_sensitivity.empty()) {
    os << "\nPredicted vs measured sensitivity (second seed §5.3.3)\n";
    AlignedTable tp({"KNOB", "SCENARIO", "SETTING", "BASE us PRED", "BASE us MEAS", "SAT QPS PRED", "SAT QPS MEAS",
                     "NOTES"});
    for (const auto& ps : a.predicted_sensitivity) {
      const std::string knob = ps.knob + " (" + ps.parameter + ")";
      if (!ps.unavailable.empty()) {
        tp.Add({knob, ps.scenario, "unavailable: " + ps.unavailable, "", "", "", "", ""});
        continue;
      }
      for (const auto& st : ps.settings) {
        tp.Add({knob, ps.scenario, st.value, opt(st.predicted_base_us), opt(st.measured_base_us),
                opt(st.predicted_saturation_qps), opt(st.measured_saturation_qps),
                st.predicted_note + (st.measured_note.empty() ? "" : "; measured: " + st.measured_note)});
      }
    }
    tp.Print(os);
  }
  os << "\n";
}

// A batch subject's findings (analysis/batch.h): per scenario × partition and copies, run time,
// throughput and CPU time per run with their intervals; the slowdown per knob, the verdicts and
// the category with its evidence. A figure not measured says why.
namespace {
std::string FigureText(const analysis::BatchFigure& f, const std::string& unit) {
  if (!f.mean) return "unavailable (" + f.unavailable + ")";
  std::string s = FormatNumber(*f.mean) + unit;
  if (f.low) s += " [" + FormatNumber(*f.low) + ", " + FormatNumber(*f.high) + "]";
  return s;
}
}  // namespace

void TextBatch(const TextPage& page, std::ostream& os) {
  if (!page.a.batch) return;
  const analysis::BatchAnalysis& b = *page.a.batch;
  os << "Batch program " << b.program << " — intervals at " << FormatNumber(b.confidence * 100)
     << " % over the repetitions\n";
  AlignedTable t({"SCENARIO / PARTITION", "COPIES", "REPS", "RUN TIME (s)", "THROUGHPUT (runs/min)", "CPU s / RUN",
               "MEMORY PEAK", "MEM BW"});
  std::string membw_why;
  for (const auto& g : b.groups) {
    for (const auto& l : g.levels) {
      t.Add({g.key, FormatNumber(l.copies), std::to_string(l.repetitions) + (l.failed ? " (" + std::to_string(l.failed) + " failed)" : ""),
             FigureText(l.run_time_s, ""), FigureText(l.runs_per_min, ""), FigureText(l.cpu_s_per_run, ""),
             l.memory_peak_bytes.has() ? FormatNumber(*l.memory_peak_bytes.value / 1048576.0) + " MiB"
                                       : "unavailable (" + l.memory_peak_bytes.unavailable + ")",
             l.membw_bps.has() ? FormatNumber(*l.membw_bps.value / 1e6) + " MB/s" : "unavailable (below)"});
      if (!l.membw_bps.has()) membw_why = l.membw_bps.unavailable;
    }
  }
  t.Print(os);
  if (!membw_why.empty()) os << "  memory bandwidth unavailable: " << membw_why << "\n";
  if (!b.slowdowns.empty()) {
    os << "\nSlowdown against the unlimited partition (limited / unlimited; throughput: unlimited / limited)\n";
    AlignedTable s({"PARTITION", "COPIES", "RUN TIME ×", "CPU TIME / RUN ×", "THROUGHPUT ÷"});
    for (const auto& sd : b.slowdowns) {
      s.Add({sd.group, FormatNumber(sd.copies), FigureText(sd.run_time, ""), FigureText(sd.cpu_time, ""),
             FigureText(sd.throughput, "")});
    }
    s.Print(os);
  }
  for (const auto& s : b.sensitivity) {
    os << "Sensitivity to " << s.resource << ": " << s.verdict << " (by " << s.judged_by << ") — " << s.evidence << "\n";
  }
  os << "Batch category: "
     << (b.category.name.empty() ? "unavailable (" + b.category.unavailable + ")" : b.category.name)
     << (b.category.tentative ? " (tentative)" : "") << "\n";
  for (const auto& e : b.category.evidence) os << "  " << e << "\n";
}

// The QoS target and what meeting it means.
void TextQos(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& pct = page.pct;
  os << "QoS target (LQoS): ";
  if (a.qos.target_us) {
    os << FormatNumber(*a.qos.target_us) << " us — " << a.qos.method;
    if (a.qos.service_time_us) {
      os << "; mean service time " << FormatNumber(*a.qos.service_time_us) << " us";
    }
  } else {
    os << "unavailable — " << a.qos.unavailable;
  }
  os << "\n";
  if (!a.qos.note.empty()) os << "  note: " << a.qos.note << "\n";
  if (a.qos.by_deadline_miss) {
    os << "A level meets QoS when it is valid and at most " << analysis::kSessionMaxDeadlineMiss * 100
       << " % of its chunks missed their play-out deadline (LQoS: that deadline).\n\n";
  } else {
    os << "A point meets QoS when its " << pct << " latency ≤ LQoS and it is valid.\n\n";
  }
}

// Table 1: each scenario × partition's load range and points, with the connections the server
// closed and each client node's part.
void TextLoadRange(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& u = page.u;
  const std::string& upper = page.upper;
  os << "Table 1 — load range per scenario × partition\n";
  AlignedTable t1({"SCENARIO / PARTITION", upper + " RANGE", "CLIENTS", "POINTS", "VALID",
                   "INVALID"});
  for (const auto& g : a.groups) {
    if (g.failed) {
      t1.Add({g.key, "not run: " + g.failure, "", "", "", ""});
      continue;
    }
    t1.Add({g.key, FormatNumber(g.min_qps) + "–" + FormatNumber(g.max_qps),
            g.min_clients == g.max_clients
                ? std::to_string(g.min_clients)
                : std::to_string(g.min_clients) + "–" + std::to_string(g.max_clients),
            std::to_string(g.points.size()), std::to_string(g.valid_points),
            std::to_string(g.invalid_points)});
  }
  t1.Print(os);
  for (const auto& g : a.groups) {
    if (!g.load_range_note.empty()) os << "  " << g.key << ": range chosen by probes (qps = \"auto\"): " << g.load_range_note << "\n";
  }
  // Connections the server closed, per point, where any was: a server that closes
  // keep-alive connections (nginx's keepalive_requests) costs reconnections, and the
  // requests lost with them count as errors.
  for (const auto& g : a.groups) {
    std::string line;
    for (const auto& p : g.points) {
      if (p.reconnections.value_or(0) == 0 && p.lost_requests.value_or(0) == 0) continue;
      line += (line.empty() ? "" : "; ") + FormatNumber(p.target_load) + " " + u + ": " +
              std::to_string(p.reconnections.value_or(0)) + " reconnection(s), " +
              std::to_string(p.lost_requests.value_or(0)) + " request(s) lost on closed connections";
      for (const auto& [reason, n] : p.lost_reasons) line += " (" + std::to_string(n) + " × " + reason + ")";
    }
    if (!line.empty()) os << "  " << g.key << ": connections closed by the server: " << line << "\n";
  }
  // Client nodes: each one's part of each point, so the host that fell behind is named.
  for (const auto& g : a.groups) {
    bool any = std::any_of(g.points.begin(), g.points.end(), [](const auto& p) { return !p.agents.empty(); });
    if (!any) continue;
    os << "  " << g.key << ": client nodes\n";
    for (const auto& p : g.points) {
      for (const auto& ag : p.agents) {
        os << "    " << FormatNumber(p.target_load) << " " << u
           << (p.repetitions > 1 ? " (measurement " + std::to_string(ag.measurement) + ")" : "") << ", "
           << AgentText(ag) << "\n";
      }
    }
  }
  os << "\n";
}

// Table 2: the load under QoS with its interval, at 20 % and 50 % CPU, and at saturation.
void TextCapacity(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& u = page.u;
  const std::string& upper = page.upper;
  const std::string& pct = page.pct;
  os << "Table 2 — " << u << " under QoS (LQoS " << Opt(a.qos.target_us, " us") << ", " << pct
     << ", " << FormatNumber(a.confidence * 100) << " % intervals)\n";
  AlignedTable t2({"SCENARIO / PARTITION", upper + " UNDER QoS", "INTERVAL", upper + " @20% CPU",
                   upper + " @50% CPU", "SATURATION " + upper});
  for (const auto& g : a.groups) {
    if (g.failed) continue;
    t2.Add({g.key, CapacityText(g.capacity), RangeText(g.capacity), Opt(g.qps_at_20),
            Opt(g.qps_at_50), Opt(g.saturation_qps)});
  }
  t2.Print(os);
  for (const auto& g : a.groups) {
    if (g.failed) continue;
    os << "  " << g.key << ": capacity " << g.capacity.status;
    if (!g.capacity.interval_method.empty()) os << "; its interval: " << g.capacity.interval_method;
    os << "; saturation " << g.saturation_note;
    if (!g.qps_at_20) os << "; QPS @20% " << g.qps_at_20_note;
    if (!g.qps_at_50) os << "; QPS @50% " << g.qps_at_50_note;
    os << "\n";
  }
  os << "\n";
}

// The scenarios this machine could not run, then the scaling ratios to 1-ST.
void TextScaling(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& upper = page.upper;
  for (const auto& [scenario, why] : a.skipped_scenarios) {
    os << scenario << " — not available here: " << why << "\n";
  }
  if (!a.skipped_scenarios.empty()) os << "\n";
  os << "Scaling (ratios to 1-ST)\n";
  AlignedTable ts({"", upper + " UNDER QoS", upper + " @20% CPU", upper + " @50% CPU"});
  // A ratio not measured for one reason in all three columns (a scenario skipped) is said
  // once, on a line of its own, not three times across the table.
  std::vector<std::string> unmeasured;
  int rows = 0;
  auto row = [&](const std::string& label, const analysis::Ratio& a1, const analysis::Ratio& a2,
                 const analysis::Ratio& a3) {
    const std::string t1 = RatioText(a1), t2 = RatioText(a2), t3 = RatioText(a3);
    if (!a1.value && !a2.value && !a3.value && t1 == t2 && t2 == t3) {
      unmeasured.push_back("  " + label + ": " + t1);
      return;
    }
    ts.Add({label, t1, t2, t3});
    ++rows;
  };
  row("2-ST / 1-ST", a.scaling.capacity_2st, a.scaling.qps20_2st, a.scaling.qps50_2st);
  row("2-SMT / 1-ST", a.scaling.capacity_2smt, a.scaling.qps20_2smt, a.scaling.qps50_2smt);
  if (rows > 0) ts.Print(os);
  for (const auto& line : unmeasured) os << line << "\n";
  os << "\n";
}

// The category with the evidence for and against each rule.
void TextCategory(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  os << "Category: " << a.category.name << " — " << a.category.explanation << "\n";
  AlignedTable tc({"CATEGORY", "MEASURED", "VALUE", "RULE", "HOLDS"});
  // A long reason for an unavailable value (a monitor's whole diagnosis) is a numbered note
  // under the table, said once however many rows share it, so the table stays readable.
  std::vector<std::string> notes;
  for (const auto& e : a.category.evidence) {
    std::string value = e.value ? FormatNumber(*e.value) + " " + e.unit : e.note;
    if (!e.value && e.note.size() > 48) {
      auto it = std::find(notes.begin(), notes.end(), e.note);
      size_t n = static_cast<size_t>(it - notes.begin()) + 1;
      if (it == notes.end()) notes.push_back(e.note);
      value = "unavailable [" + std::to_string(n) + "]";
    }
    tc.Add({e.category, e.name, value, e.rule, e.holds ? "yes" : "no"});
  }
  tc.Print(os);
  for (size_t i = 0; i < notes.size(); ++i) os << "  [" << i + 1 << "] " << notes[i] << "\n";
  os << "\n";
}

// Sensitivity to each partitioned resource.
void TextSensitivity(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& u = page.u;
  os << "Sensitivity (" << u << " under QoS across partitions)\n";
  AlignedTable tsen({"RESOURCE", "SCENARIO", "STATUS", "DETAIL"});
  for (const auto& s : a.sensitivity) {
    std::string detail = s.explanation;
    for (const auto& p : s.points) {
      detail += "; " + p.value + ": " +
                (p.capacity_qps ? (p.lower_bound ? "≥ " : "") + FormatNumber(*p.capacity_qps)
                                : std::string("—"));
      detail += RelativeChangeText(p.relative_change);
    }
    tsen.Add({s.resource, s.scenario.empty() ? "—" : s.scenario, s.status, detail});
  }
  tsen.Print(os);
  os << "\n";
}

// Runs of one spec pooled (--with): each run's figure beside the pool's, and their range.
void TextAcrossRuns(const TextPage& page, std::ostream& os) {
  const analysis::AcrossRuns& r = page.a.across_runs;
  if (r.experiments.empty()) return;
  const std::string names = Join(r.experiments, ", ");
  os << "Across runs — " << r.experiments.size() << " runs of one spec pooled (" << names
     << "): every interval above is over the repetitions of all of them; each run on its own:\n";
  std::vector<std::string> header = {"FIGURE", "GROUP"};
  for (const auto& e : r.experiments) header.push_back(e);
  for (const char* h : {"POOLED", "RANGE OVER RUNS", "SPREAD"}) header.push_back(h);
  AlignedTable t(header);
  std::vector<std::string> notes;
  for (const auto& f : r.figures) {
    std::vector<std::string> row = {f.figure, f.group};
    for (const auto& b : f.per_run) row.push_back(BoundedText(b, FormatNumber));
    row.push_back(BoundedText(f.pooled, FormatNumber));
    row.push_back(f.low && f.high ? FormatNumber(*f.low) + "–" + FormatNumber(*f.high) : "—");
    row.push_back(f.spread ? FormatNumber(*f.spread * 100) + " %" : "—");
    t.Add(std::move(row));
    if (!f.note.empty()) notes.push_back(f.group + ": " + f.note);
  }
  t.Print(os);
  for (const auto& n : notes) os << "  " << n << "\n";
  os << "  spread = (highest − lowest) / median of the runs' exact figures\n\n";
}

// The modes of a run under one schedule, window by window (analysis/manager_compare.h).
void TextManager(const TextPage& page, std::ostream& os) {
  const analysis::ManagerComparison& c = page.a.manager;
  if (c.modes.empty()) return;
  os << "Modes under the load schedule — windows meeting QoS (" << page.pct
     << " within the target, the window valid) and what the neighbours got:\n";
  AlignedTable t({"MODE", "RUNS", "WINDOWS", "VALID", "MET QoS", "NEIGHBOURS CPU-s/s", "EMU", "SETTLING", "MOVES",
                  "PARETO"});
  std::vector<std::string> notes;
  for (const auto& m : c.modes) {
    t.Add({m.mode + (m.managed ? " (managed)" : ""), std::to_string(m.runs), std::to_string(m.windows),
           std::to_string(m.valid),
           m.met_share ? FormatNumber(*m.met_share * 100) + " % (" + std::to_string(m.met) + ")" : "— (" + m.met_note + ")",
           m.neighbour_throughput ? FormatNumber(*m.neighbour_throughput) : "—",
           m.emu ? FormatNumber(*m.emu) : "—",
           m.settling_s ? FormatNumber(*m.settling_s) + " s" + (m.unsettled ? " (" + std::to_string(m.unsettled) +
                                                                              " unsettled)"
                                                                            : std::string())
                        : (m.steps ? std::to_string(m.unsettled) + " of " + std::to_string(m.steps) + " unsettled" : "—"),
           m.managed ? std::to_string(m.actions) + (m.failed_actions ? " (" + std::to_string(m.failed_actions) +
                                                                           " failed)"
                                                                         : std::string())
                     : "—",
           m.pareto ? "yes" : "no"});
    if (!m.neighbour_note.empty() && m.mode != "alone") notes.push_back(m.mode + ": " + m.neighbour_note);
    if (!m.emu_note.empty()) notes.push_back(m.mode + ": EMU unavailable: " + m.emu_note);
  }
  t.Print(os);
  for (const auto& n : notes) os << "  " << n << "\n";
  if (!c.verdict.empty()) os << "  " << c.verdict << "\n";
  os << "\n";
}

// The cheapest allocation that meets the target load.
void TextRecommendation(const TextPage& page, std::ostream& os) {
  const analysis::ExperimentAnalysis& a = page.a;
  const std::string& u = page.u;
  if (a.recommendation) {
    os << "Recommendation for " << FormatNumber(a.recommendation->target_qps)
       << " " << u << ": " << a.recommendation->explanation << "\n\n";
  }
}

namespace {

class TextReporter : public Reporter {
 public:
  std::string_view name() const override { return "text"; }
  Status Report(const ReportInput& in, std::ostream& os) override {
    const ExperimentAnalysis& a = *in.analysis;
    os << "Experiment " << a.experiment;
    if (!a.workload.empty()) os << " — workload: " << a.workload;
    os << "\n\n";
    const TextPage page = MakeTextPage(a);
    for (const ReportSection& section : ReportSections()) {
      if (section.text && SectionShown(section, a)) section.text(page, os);
    }
    for (const auto& w : a.warnings) os << "warning: " << w << "\n";
    if (!os) return IoError("writing the analysis failed");
    return Status::Ok();
  }
};

class JsonReporter : public Reporter {
 public:
  std::string_view name() const override { return "json"; }
  Status Report(const ReportInput& in, std::ostream& os) override {
    os << analysis::ToJson(*in.analysis).dump(2) << "\n";
    if (!os) return IoError("writing the analysis JSON failed");
    return Status::Ok();
  }
};

class ModelReporter : public Reporter {
 public:
  explicit ModelReporter(bool json) : json_(json) {}
  std::string_view name() const override { return json_ ? "model-json" : "model"; }
  Status Report(const ReportInput& in, std::ostream& os) override {
    const analysis::ExperimentAnalysis& a = *in.analysis;
    if (json_) {
      nlohmann::json all = analysis::ToJson(a);
      nlohmann::json groups = nlohmann::json::array();
      for (const auto& g : all["groups"]) {
        groups.push_back({{"key", g["key"]}, {"model", g["model"]}, {"model_unavailable", g["model_unavailable"]}});
      }
      nlohmann::json j = {{"experiment", a.experiment},
                          {"workload", a.workload},
                          {"groups", groups},
                          {"predicted_sensitivity", all["predicted_sensitivity"]}};
      os << j.dump(2) << "\n";
    } else {
      os << "Experiment " << a.experiment << " (" << a.workload << ")\n\n";
      TextModel(MakeTextPage(a), os);
    }
    if (!os) return IoError("writing the model failed");
    return Status::Ok();
  }

 private:
  bool json_;
};

}  // namespace

std::string FormatNumber(double v) {
  char b[64];
  if (!std::isfinite(v)) return "—";
  double av = std::abs(v);
  // From 999.5 up, three significant digits would print "1e+03".
  if (av >= 999.5 || (av >= 100 && std::abs(v - std::round(v)) < 1e-9)) {
    std::snprintf(b, sizeof b, "%.0f", v);
  } else {
    std::snprintf(b, sizeof b, "%.3g", v);
  }
  return b;
}

std::string BoundedText(const analysis::Bounded& b, std::string (*format)(double), bool why) {
  if (b.value) return analysis::BoundPrefix(b.bound) + format(*b.value);
  if (b.withheld.empty()) return "—";
  return why ? "withheld: " + b.withheld : "withheld";
}

std::string Times(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f×", v);
  return b;
}

std::string SharePercent(double v) { return FormatNumber(v * 100) + " %"; }

std::string RelativeChangeText(const analysis::Bounded& change) {
  if (!change.value && change.withheld.empty()) return "";
  auto signed_percent = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f %%", v * 100);
    return std::string(b);
  };
  return " (" + BoundedText(change, +signed_percent, true) + ")";
}

TextPage MakeTextPage(const analysis::ExperimentAnalysis& a) {
  // Loads are named by the sweep's axis: "QPS" (as always) or "sessions".
  TextPage page{a, "p" + FormatNumber(a.percentile), std::string(LoadAxisUnit(a.load_axis)), ""};
  page.upper = page.u;
  for (char& c : page.upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return page;
}

std::string AgentText(const analysis::AgentFigures& a) {
  std::string s = (a.name.empty() ? std::string("agent") : a.name) + ": ";
  if (!a.valid && !a.failure.empty()) {
    return s + "asked " + FormatNumber(a.target_qps) + " QPS, returned no result: " + a.failure;
  }
  s += FormatNumber(a.achieved_qps) + " of " + FormatNumber(a.target_qps) + " QPS, timely " +
       FormatNumber(a.timely_ratio * 100) + " %";
  if (a.lateness_p99_us) s += ", lateness p99 " + FormatNumber(*a.lateness_p99_us) + " µs";
  if (a.latency_p99_us) s += ", latency p99 " + FormatNumber(*a.latency_p99_us) + " µs";
  if (a.clock_offset_us) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f", *a.clock_offset_us);
    s += std::string(", clock ") + b + " µs (round trip " + FormatNumber(a.clock_rtt_us.value_or(0)) +
         " µs, best of " + std::to_string(a.clock_samples) + ")";
  } else {
    s += ", clock offset unavailable (no sample answered)";
  }
  if (a.valid && *a.valid) return s + ": valid";
  std::string why;
  for (const auto& r : a.invalid_reasons) why += (why.empty() ? "" : "; ") + r;
  return s + (a.valid ? ": invalid" : ": no verdict") + (why.empty() ? "" : " (" + why + ")");
}

std::unique_ptr<Reporter> MakeTextReporter() { return std::make_unique<TextReporter>(); }
std::unique_ptr<Reporter> MakeJsonReporter() { return std::make_unique<JsonReporter>(); }
std::unique_ptr<Reporter> MakeModelReporter() { return std::make_unique<ModelReporter>(false); }
std::unique_ptr<Reporter> MakeModelJsonReporter() { return std::make_unique<ModelReporter>(true); }

}  // namespace ream::report
