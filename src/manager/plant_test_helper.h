// A simulated plant for the policies' tests (tests only): a latency-critical subject and one
// CPU-bound neighbour ("stream") sharing a CPU, with figures a function of the allocation and
// the load, so a policy's decisions can be followed window by window without a machine.
//
// The subject is an M/M/1 queue whose service rate is its capacity alone scaled by what the
// neighbour leaves it: capacity × (1 − interference × the neighbour's CPU), where a neighbour in
// the idle class interferes `idle_interference` as much (it still shares caches and memory).
// Its p95 sojourn time is ln(20) / (μ − λ); at or past saturation `overload_tail_us` × λ / μ. The
// neighbour's throughput is its CPU in completions/s: its quota, and in the idle class only the
// CPU the subject leaves. The subject's LLC ways change nothing here: a move of them never helps.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "manager/policy.h"

namespace ream::plant {

struct Plant {
  double capacity_qps = 60000;      // the subject alone
  double interference = 0.5;        // capacity lost per CPU of a normal-class neighbour
  double idle_interference = 0.2;   // an idle-class neighbour's share of that
  double target_us = 500;
  double overload_tail_us = 50000;
  double completions_per_cpu_s = 1000;

  // The window's figures under `a` at `load_qps`.
  WindowFigures Measure(const Allocation& a, double load_qps, int64_t index) const {
    const double quota = a.Get("stream", "cpu_quota").value_or(1.0);
    const bool idle = a.Get("stream", "cpu_idle").value_or(1.0) < 0.5;
    const double subject_quota = a.Get("subject", "cpu_quota").value_or(1.0);
    const double mu =
        capacity_qps * std::min(1.0, subject_quota) * (1 - interference * quota * (idle ? idle_interference : 1.0));
    WindowFigures w;
    w.index = index;
    w.valid = true;
    w.target_us = target_us;
    w.load_qps = load_qps;
    // Past saturation the queue grows through the window: the further past, the longer.
    w.tail_us = mu > load_qps ? std::log(20.0) / (mu - load_qps) * 1e6 : overload_tail_us * load_qps / mu;
    const double cpu = idle ? std::min(quota, std::max(0.0, 1 - load_qps / capacity_qps)) : quota;
    w.neighbour_throughput["stream"] = cpu * completions_per_cpu_s;
    return w;
  }
};

// A [[manager.resource]] as the spec parser makes it: texts read by the knob's own parser, an
// empty text the knob's default (cpu_idle's unit and bounds).
inline ManagerResourceSpec Resource(const std::string& knob, const std::string& tenant, const std::string& unit = "",
                                    const std::string& min = "", const std::string& max = "") {
  ManagerResourceSpec r;
  r.knob = BuiltinKnobs().Find(knob);
  r.tenant = tenant;
  const KnobMoves& m = *r.knob->moves;
  auto level = [&](const std::string& text, double fallback) {
    return text.empty() ? fallback : *m.level(*r.knob->parse(text, knob), knob);
  };
  r.unit = level(unit, m.unit);
  r.min = level(min, m.lowest.value_or(0));
  r.max = level(max, m.highest.value_or(0));
  r.unit_text = m.text(r.unit);
  r.min_text = m.text(r.min);
  r.max_text = m.text(r.max);
  return r;
}

// The neighbour's quota (10 % to 100 % by 10 %) and its scheduling class, as in the examples.
inline ManagerSpec StreamSpec(const std::string& policy) {
  ManagerSpec s;
  s.given = true;
  s.policy = policy;
  s.peak_qps = 48000;  // the plant's capacity at QoS beside an idle-class neighbour, about
  s.resources = {Resource("cpu_quota", "stream", "10%", "10%", "100%"), Resource("cpu_idle", "stream")};
  return s;
}

}  // namespace ream::plant
