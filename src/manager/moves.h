// The moves both policies make, over one allocation: a knob's unit taken from the neighbours
// and given to the subject or back, every neighbour sent to its lower bound, a move undone.
// Each move applies to the allocation and returns its actions; no level leaves its bounds.
//
// A knob that both the subject and a neighbour have a resource of is shared (cache ways, CPUs,
// bandwidth split between them): a unit changes hands, both move or neither does. A knob only
// the neighbours have (their quota, their class) moves on their side alone, and one only the
// subject has on its side alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "manager/allocation.h"
#include "manager/policy.h"

namespace ream {

class Moves {
 public:
  Moves(std::vector<Movable> movables, Allocation start)
      : movables_(std::move(movables)), allocation_(std::move(start)) {}

  const Allocation& allocation() const { return allocation_; }
  const std::vector<Movable>& movables() const { return movables_; }
  // The knobs moved, each once, in the spec's order: the order resources are tried in.
  std::vector<std::string> Knobs() const;
  // Whether some neighbour (any tenant but the subject) has a resource of `knob`.
  bool NeighbourHas(const std::string& knob) const;

  // One unit of `knob` toward the subject (`toward_subject`) or away from it, from the
  // neighbour with the most units above its lower bound / to the one with the most room below
  // its upper bound. Empty when nothing can move (every side at its bound).
  std::vector<Action> Shift(const std::string& knob, bool toward_subject, const std::string& reason);
  // Every neighbour's resources to their lower bounds, and the subject's of a shared knob to
  // their upper: Heracles' "disable the best-effort tasks". Only what changes.
  std::vector<Action> NeighboursToLowest(const std::string& reason);
  // The actions undone, last first.
  std::vector<Action> Undo(const std::vector<Action>& done, const std::string& reason);

 private:
  double Level(const Movable& m) const { return *allocation_.Get(m.tenant, m.knob->key); }
  Action MoveTo(const Movable& m, double to, const std::string& reason);

  std::vector<Movable> movables_;
  Allocation allocation_;
};

// The decision on a window whose figures were not measured (invalid, or its tail or target
// missing): no action, saying why. nullopt when the window has a slack to act on.
std::optional<Decision> Unmeasured(const WindowFigures& w);

// "0.034" as a slack in words: "+3.4 %".
std::string SlackText(double slack);

}  // namespace ream
