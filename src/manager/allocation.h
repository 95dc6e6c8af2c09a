// What a manager holds: each tenant's level of each resource it may move, and those resources'
// bounds (the spec's min and max, raised to the floor). Levels are numbers in the knob's own
// unit (partition/knobs.h KnobMoves), more is more of the resource.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spec/spec.h"

namespace ream {

// Each tenant's level of each movable resource: (tenant, knob) -> level.
class Allocation {
 public:
  void Set(const std::string& tenant, const std::string& knob, double level) { levels_[{tenant, knob}] = level; }
  std::optional<double> Get(const std::string& tenant, const std::string& knob) const;
  const std::map<std::pair<std::string, std::string>, double>& levels() const { return levels_; }

 private:
  std::map<std::pair<std::string, std::string>, double> levels_;
};

// One resource a manager moves: a knob of one tenant, its unit and its bounds.
struct Movable {
  std::string tenant;
  const Knob* knob = nullptr;
  double unit = 0;
  double lower = 0;  // max(min, the knob's floor)
  double upper = 0;
  bool subject() const { return tenant == "subject"; }
  // The level in the knob's own words ("40%", "idle").
  std::string Text(double level) const;
  // `level` moved by `units` units and held in [lower, upper].
  double Step(double level, int units) const;
};

// The resources of `spec`, in its order, with the floor applied to their lower bounds.
std::vector<Movable> MovablesOf(const ManagerSpec& spec);

// `start` completed for `movables` (a missing level is the resource's upper bound).
// InvalidArgument "stream's cpu_quota starts at 5%, outside its bounds [10%, 100%]" otherwise.
Result<Allocation> StartingAllocation(const std::vector<Movable>& movables, const Allocation& start);

}  // namespace ream
