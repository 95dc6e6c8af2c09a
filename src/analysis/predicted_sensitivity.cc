// The second seed's expected sensitivities (§5.3.3) beside the measured ones.
#include "analysis/predicted_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/format.h"
#include "analysis/model.h"
#include "analysis/stats.h"

namespace ream::analysis {
namespace {

// The mean response (µs) at `load` on the group's valid points, interpolated.
std::optional<double> MeanAt(const GroupAnalysis& g, double load) {
  std::vector<XY> curve;
  for (const auto& p : g.points) {
    if (p.valid) curve.push_back({p.target_load, p.mean_us});
  }
  return InterpolateY(curve, load);
}

// Bytes on the wire per operation, both directions (the server's rx + tx over its throughput),
// the median over the valid points that measured both.
std::optional<double> BytesPerOp(const GroupAnalysis& g) {
  std::vector<double> v;
  for (const auto& p : g.points) {
    if (p.valid && p.net_rx_bps.has() && p.net_tx_bps.has() && p.throughput_qps > 0) {
      v.push_back((*p.net_rx_bps.value + *p.net_tx_bps.value) / p.throughput_qps);
    }
  }
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Connections(const GroupAnalysis& g) {
  int c = 0;
  for (const auto& p : g.points) c = std::max(c, p.clients);
  return c;
}

struct KnobRule {
  const char* knob;
  const char* parameter;
  const char* rule;
};

constexpr KnobRule kRules[] = {
    {kLatencyKnob, "L",
     "base response + 2·ΔL (a request and its reply each cross the delay once); slope and saturation unchanged"},
    {kOverheadKnob, "o",
     "saturation X_sat = c / (S0 + k·o); base response + k·Δo (the CPU time paid per message is on the path)"},
    {kGapKnob, "g",
     "each connection's messages at least g apart: saturation at most connections / g; base response + the wait "
     "of a deterministic server g per connection and direction (ρ·g / (1 − ρ), ρ = λ·g / connections)"},
    {kPerByteKnob, "G",
     "a knee once the offered bytes/s approach 1/G: saturation at most 1 / (G · bytes per op); base response + "
     "G · bytes per op"},
};

}  // namespace

std::vector<PredictedSensitivity> PredictSensitivity(const std::vector<GroupAnalysis>& groups, const KnobTable& knobs) {
  std::vector<PredictedSensitivity> out;
  std::vector<std::string> scenarios;
  for (const auto& g : groups) {
    if (std::find(scenarios.begin(), scenarios.end(), g.scenario) == scenarios.end()) scenarios.push_back(g.scenario);
  }
  for (const KnobRule& rule : kRules) {
    const std::string resource = ResourceOf(knobs, rule.knob);
    auto amount = [&](const GroupAnalysis& g) { return LogGpSeconds(g.partition, knobs, rule.knob); };
    // The other knobs, so that only partitions differing in this one are compared.
    auto rest = [&](const Partition& p) {
      std::string k;
      for (const auto& [n, v] : p.limits) {
        if (n != resource) k += n + "=" + Fmt(v, 12) + ";";
      }
      for (const auto& [n, v] : p.other) k += n + ":" + v + ";";
      return k;
    };
    for (const auto& sc : scenarios) {
      std::vector<std::string> families;
      for (const auto& g : groups) {
        if (g.scenario == sc && !g.failed && amount(g)) {
          std::string r = rest(g.partition);
          if (std::find(families.begin(), families.end(), r) == families.end()) families.push_back(r);
        }
      }
      for (const auto& family : families) {
        std::vector<const GroupAnalysis*> members;
        for (const auto& g : groups) {
          if (g.scenario != sc || g.failed || rest(g.partition) != family) continue;
          // A partition without the knob is its zero setting.
          members.push_back(&g);
        }
        std::sort(members.begin(), members.end(), [&](auto* a, auto* b) {
          return amount(*a).value_or(0) < amount(*b).value_or(0);
        });
        PredictedSensitivity ps;
        ps.knob = rule.knob;
        ps.parameter = rule.parameter;
        ps.scenario = sc;
        ps.rule = rule.rule;
        const GroupAnalysis* ref = members.front();
        ps.reference = ref->key;
        if (members.size() < 2) {
          ps.unavailable = "only one setting of " + std::string(rule.knob) + " was measured (" + ref->key +
                           "); a prediction needs a reference and another setting";
          out.push_back(std::move(ps));
          continue;
        }
        if (!ref->model) {
          ps.unavailable = "the reference " + ref->key + " has no model: " + ref->model_unavailable;
          out.push_back(std::move(ps));
          continue;
        }
        const ModelComparison& m = *ref->model;
        ps.base_load_qps = m.mean.base_load_qps;
        if (ps.base_load_qps <= 0) {
          for (const auto& p : ref->points) {
            if (p.valid) {
              ps.base_load_qps = p.target_load;
              break;
            }
          }
        }
        const double ref_amount = amount(*ref).value_or(0);
        const std::optional<double> ref_base = MeanAt(*ref, ps.base_load_qps);
        std::optional<double> ref_slope;
        if (m.mean.measured) ref_slope = m.mean.measured->fit.slope * 1e6;
        // The reference's saturation: measured where the sweep reached it, else the model's.
        const double ref_sat = ref->saturation_qps.value_or(m.saturation_qps);
        const std::string ref_sat_how = ref->saturation_qps ? "the reference's measured saturation"
                                                            : "the reference's model X_sat (it did not saturate)";
        const std::optional<double> bytes = BytesPerOp(*ref);
        const int conns = Connections(*ref);
        for (const GroupAnalysis* g : members) {
          PredictedSetting s;
          s.group_key = g->key;
          s.amount_s = amount(*g).value_or(0);
          const double delta = s.amount_s - ref_amount;
          const bool per_byte = std::string(rule.parameter) == "G";
          s.value = per_byte ? Fmt(s.amount_s * 1e9, 4) + " ns/B" : Fmt(s.amount_s * 1e6, 4) + " us";
          s.measured_base_us = MeanAt(*g, ps.base_load_qps);
          if (!s.measured_base_us) s.measured_note = "not measured at the base load " + Fmt(ps.base_load_qps, 6);
          if (g->model && g->model->mean.measured) s.measured_slope_us_per_qps = g->model->mean.measured->fit.slope * 1e6;
          s.measured_saturation_qps = g->saturation_qps;
          if (!g->saturation_qps) {
            s.measured_note += (s.measured_note.empty() ? "" : "; ") + std::string("saturation ") + g->saturation_note;
          }
          const std::string p = rule.parameter;
          if (p == "L") {
            if (ref_base) s.predicted_base_us = *ref_base + 2 * delta * 1e6;
            s.predicted_slope_us_per_qps = ref_slope;
            s.predicted_saturation_qps = ref_sat;
            s.predicted_note = "saturation: " + ref_sat_how;
          } else if (p == "o") {
            if (ref_base) s.predicted_base_us = *ref_base + m.messages_per_op * delta * 1e6;
            s.predicted_saturation_qps = SaturationThroughput(m.capacity_cpus, m.s0_s, m.messages_per_op, s.amount_s);
            s.predicted_note = "S0 " + Fmt(m.s0_s * 1e6) + " µs, k " + Fmt(m.messages_per_op) + ", c " +
                               std::to_string(m.model.servers) + " from the reference's model";
          } else if (p == "g") {
            if (conns <= 0) {
              s.predicted_note = "the connections per point are unknown";
            } else {
              double rho = ps.base_load_qps * s.amount_s / conns;
              double rho0 = ps.base_load_qps * ref_amount / conns;
              auto gap_wait = [](double r, double gap) { return r < 1 ? r * gap / (1 - r) : INFINITY; };
              if (ref_base && rho < 1) {
                s.predicted_base_us = *ref_base + (gap_wait(rho, s.amount_s) - gap_wait(rho0, ref_amount)) * 1e6;
              }
              s.predicted_saturation_qps = s.amount_s > 0 ? std::min(ref_sat, conns / s.amount_s) : ref_sat;
              s.predicted_note = std::to_string(conns) + " connection(s); saturation at most " + ref_sat_how;
            }
          } else {  // G
            if (!bytes) {
              s.predicted_note = "bytes per operation unknown: the server's network rx/tx was not measured";
            } else {
              if (ref_base) s.predicted_base_us = *ref_base + *bytes * delta * 1e6;
              double knee = s.amount_s > 0 ? 1 / (s.amount_s * *bytes) : INFINITY;
              s.predicted_saturation_qps = std::min(ref_sat, knee);
              s.predicted_note = Fmt(*bytes) + " bytes per operation (rx + tx over throughput); knee at " +
                                 (std::isfinite(knee) ? Fmt(knee, 4) + " QPS" : std::string("no limit"));
            }
          }
          ps.settings.push_back(std::move(s));
        }
        out.push_back(std::move(ps));
      }
    }
  }
  return out;
}

}  // namespace ream::analysis
