// The manager's allocation and the bounds of what it moves.
#include "manager/allocation.h"

#include <algorithm>

namespace ream {

std::optional<double> Allocation::Get(const std::string& tenant, const std::string& knob) const {
  auto it = levels_.find({tenant, knob});
  if (it == levels_.end()) return std::nullopt;
  return it->second;
}

std::string Movable::Text(double level) const { return knob->moves->text(level); }

double Movable::Step(double level, int units) const {
  return std::clamp(level + units * unit, lower, upper);
}

std::vector<Movable> MovablesOf(const ManagerSpec& spec) {
  std::vector<Movable> out;
  for (const auto& r : spec.resources) {
    Movable m{.tenant = r.tenant, .knob = r.knob, .unit = r.unit, .lower = r.min, .upper = r.max};
    if (auto f = spec.floor.find(r.knob->key); f != spec.floor.end()) m.lower = std::max(m.lower, f->second);
    out.push_back(m);
  }
  return out;
}

Result<Allocation> StartingAllocation(const std::vector<Movable>& movables, const Allocation& start) {
  Allocation a;
  for (const auto& m : movables) {
    const double level = start.Get(m.tenant, m.knob->key).value_or(m.upper);
    // A level a hair outside from its text's rounding is the bound itself.
    const double slack = 1e-9 * std::max(1.0, m.upper);
    if (level < m.lower - slack || level > m.upper + slack) {
      return InvalidArgument(m.tenant + "'s " + m.knob->key + " starts at " + m.Text(level) +
                             ", outside what the manager may give it [" + m.Text(m.lower) + ", " + m.Text(m.upper) +
                             "] (its min, max and the floor)");
    }
    a.Set(m.tenant, m.knob->key, std::clamp(level, m.lower, m.upper));
  }
  return a;
}

}  // namespace ream
