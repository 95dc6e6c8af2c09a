// A manager's policy as pure logic: each window's figures in, the moves of the tenants'
// resources out, with the reason in words. No system, no partition is touched here: the caller
// applies the actions through the partition layer, so the policies are tested against a
// simulated plant (plant_test_helper.h) and their rules are the papers' (docs/manager.md).
//
//   REAM_ASSIGN_OR_RETURN(auto policy, MakePolicy(spec.manager, start));
//   for each window:  Decision d = policy->Decide(figures);   // then apply d.actions
//
// The subject is the latency-critical tenant ("subject"); every other tenant is a best-effort
// neighbour whose throughput the manager trades against the subject's slack.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "manager/allocation.h"
#include "platform/status.h"
#include "spec/spec.h"

namespace ream {

// What one window measured, as the policy needs it. Slack = (target - tail) / target.
struct WindowFigures {
  int64_t index = 0;  // the window's number in the run, increasing
  // Whether the window's figures were measured as asked (the generator kept its schedule, no
  // tenant ended): a policy never acts on an invalid window.
  bool valid = false;
  std::string invalid_because;  // with !valid: why, in words
  // The subject's tail latency at the QoS percentile over the window; unset: not measured.
  std::optional<double> tail_us;
  double target_us = 0;  // the subject's QoS target
  double load_qps = 0;   // the subject's load over the window
  // Each neighbour's throughput over the window, in its own unit (QPS, completions/s, CPU-s/s).
  std::map<std::string, double> neighbour_throughput;

  // The slack, or nullopt when the tail or the target is missing.
  std::optional<double> Slack() const;
};

// One move of one tenant's resource, between levels (partition/knobs.h KnobMoves).
struct Action {
  std::string tenant;
  std::string knob;
  double from = 0, to = 0;
  std::string from_text, to_text;  // in the knob's own words: "50%", "idle"
  std::string reason;
  // "stream cpu_quota 50% -> 40%: ..." for logs and tests.
  std::string ToString() const;
};

// A policy's answer to one window: the moves (possibly none) and what it concluded, in words,
// always set: an empty `actions` says why nothing moved.
struct Decision {
  int64_t window = 0;
  double slack = 0;  // meaningful when the window was valid
  std::vector<Action> actions;
  std::string note;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Decides on one window and applies its actions to allocation(). Windows come in order.
  virtual Decision Decide(const WindowFigures& window) = 0;
  // Every tenant's level of every resource after the decisions so far.
  virtual const Allocation& allocation() const = 0;
};

// The policy `spec.policy` names over `spec`'s resources, starting from `start` (a resource
// absent from it starts at its upper bound: a tenant without a limit has the most it could be
// given). InvalidArgument naming the tenant and knob when a start is outside its bounds or
// below the floor, or for an unknown policy.
Result<std::unique_ptr<Policy>> MakePolicy(const ManagerSpec& spec, const Allocation& start = {});

}  // namespace ream
