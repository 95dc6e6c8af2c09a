// Arithmetic on figures that may be bounds (bounded.h).
#include "analysis/bounded.h"

namespace ream::analysis {
namespace {

// The direction two bounds give a result together; nullopt when they point opposite ways.
std::optional<Bound> Combine(Bound a, Bound b) {
  if (a == Bound::kNone) return b;
  if (b == Bound::kNone || a == b) return a;
  return std::nullopt;
}

}  // namespace

const char* BoundName(Bound b) {
  switch (b) {
    case Bound::kUpper: return "upper";
    case Bound::kLower: return "lower";
    case Bound::kNone: break;
  }
  return "";
}

Bound Opposite(Bound b) {
  return b == Bound::kUpper ? Bound::kLower : b == Bound::kLower ? Bound::kUpper : Bound::kNone;
}

const char* BoundPrefix(Bound b) {
  return b == Bound::kUpper ? "≤ " : b == Bound::kLower ? "≥ " : "";
}

Bounded CapacityFigure(const std::optional<double>& value, bool lower_bound, const std::optional<double>& upper_bound,
                       const std::string& status) {
  if (value) return Bounded::Of(*value, lower_bound ? Bound::kLower : Bound::kNone);
  if (upper_bound) return Bounded::AtMost(*upper_bound);
  return Bounded::Withheld(status.empty() ? "no capacity" : status);
}

Bounded Divide(const Bounded& num, const Bounded& den, const std::string& conflict, const std::string& num_name,
               const std::string& den_name) {
  if (!num.value) return Bounded::Withheld(num_name + ": " + num.withheld);
  if (!den.value) return Bounded::Withheld(den_name + ": " + den.withheld);
  if (*den.value <= 0) return Bounded::Withheld(den_name + " is not above 0");
  auto b = Combine(num.bound, Opposite(den.bound));
  if (!b) return Bounded::Withheld(conflict);
  return Bounded::Of(*num.value / *den.value, *b);
}

Bounded Add(const Bounded& a, const Bounded& b, const std::string& conflict) {
  if (!a.value) return a;
  if (!b.value) return b;
  auto d = Combine(a.bound, b.bound);
  if (!d) return Bounded::Withheld(conflict);
  return Bounded::Of(*a.value + *b.value, *d);
}

Bounded Subtract(const Bounded& a, const Bounded& b, const std::string& conflict) {
  return Add(a, Scale(b, -1), conflict);
}

Bounded Scale(const Bounded& a, double k) {
  if (!a.value) return a;
  return Bounded::Of(*a.value * k, k < 0 ? Opposite(a.bound) : a.bound);
}

Bounded Also(const Bounded& a, Bound b, const std::string& conflict) {
  if (!a.value) return a;
  auto d = Combine(a.bound, b);
  if (!d) return Bounded::Withheld(conflict);
  return Bounded::Of(*a.value, *d);
}

nlohmann::json ToJson(const Bounded& b) {
  return {{"value", b.value ? nlohmann::json(*b.value) : nlohmann::json()},
          {"bound", BoundName(b.bound)},
          {"withheld", b.withheld}};
}

}  // namespace ream::analysis
