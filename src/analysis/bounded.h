// A figure derived from capacities that may be only bounds (DESIGN.md "Bounds stay bounds"): a
// capacity beyond the sweep is at least its top level, one below the lowest valid level at most
// that level, and a ratio, a sum or a difference computed from them is a bound in the direction
// they give it, or is withheld with the reason when they bound it from opposite sides.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ream::analysis {

// Which side of the value the true figure lies on.
enum class Bound {
  kNone,   // the value is the figure
  kUpper,  // the figure is at most the value ("≤")
  kLower,  // the figure is at least the value ("≥")
};

struct Bounded {
  std::optional<double> value;
  Bound bound = Bound::kNone;
  std::string withheld;  // why there is no value; "" with one

  static Bounded Exact(double v) { return {v, Bound::kNone, ""}; }
  static Bounded AtMost(double v) { return {v, Bound::kUpper, ""}; }
  static Bounded AtLeast(double v) { return {v, Bound::kLower, ""}; }
  static Bounded Withheld(std::string why) { return {std::nullopt, Bound::kNone, std::move(why)}; }
  static Bounded Of(double v, Bound b) { return {v, b, ""}; }

  bool exact() const { return value && bound == Bound::kNone; }
  bool is_bound() const { return value && bound != Bound::kNone; }
  bool operator==(const Bounded&) const = default;
};

// "upper", "lower" or "" (the JSON's `bound`).
const char* BoundName(Bound b);
Bound Opposite(Bound b);
// "≤ ", "≥ " or "": what a figure's text starts with.
const char* BoundPrefix(Bound b);

// A capacity (Capacity's or ColocationGroup's fields) as a figure: exact, at least its value
// (every valid level met QoS), at most its upper bound (even the lowest valid level missed), or
// withheld with `status` (why there is none).
Bounded CapacityFigure(const std::optional<double>& value, bool lower_bound, const std::optional<double>& upper_bound,
                       const std::string& status);

// num / den. A bound of either side bounds the ratio (the denominator's direction reversed);
// withheld when they bound it from opposite sides (`conflict` says so in the caller's words,
// e.g. "both beyond the sweep"), when a side is withheld (its reason, after `num_name` or
// `den_name`), or when den ≤ 0.
Bounded Divide(const Bounded& num, const Bounded& den, const std::string& conflict,
               const std::string& num_name = "the numerator", const std::string& den_name = "the denominator");
// a + b, a − b and k · a with the same rule: bounds that point the same way add up, opposite ones
// withhold the result with `conflict`.
Bounded Add(const Bounded& a, const Bounded& b, const std::string& conflict);
Bounded Subtract(const Bounded& a, const Bounded& b, const std::string& conflict);
Bounded Scale(const Bounded& a, double k);
// The figure with its direction combined with `b` (a figure read at a score that is itself only
// a bound): withheld with `conflict` when the two point opposite ways.
Bounded Also(const Bounded& a, Bound b, const std::string& conflict);

// The one JSON shape of every derived figure: {"value": number|null, "bound": "upper"|"lower"|"",
// "withheld": "why"|""}.
nlohmann::json ToJson(const Bounded& b);

}  // namespace ream::analysis
