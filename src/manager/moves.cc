// The moves both policies make (manager/moves.h).
#include "manager/moves.h"

#include <algorithm>
#include <map>

#include "platform/text.h"

namespace ream {

std::string SlackText(double slack) { return Fmt("%+.1f %%", slack * 100); }

std::optional<Decision> Unmeasured(const WindowFigures& w) {
  if (w.valid && w.Slack()) return std::nullopt;
  return Decision{.window = w.index,
                  .note = "window " + std::to_string(w.index) + " is not valid (" +
                          (!w.valid ? w.invalid_because : std::string("its tail latency or QoS target is unavailable")) +
                          "): no action on figures that were not measured"};
}

std::vector<std::string> Moves::Knobs() const {
  std::vector<std::string> out;
  for (const auto& m : movables_) {
    if (std::find(out.begin(), out.end(), m.knob->key) == out.end()) out.push_back(m.knob->key);
  }
  return out;
}

bool Moves::NeighbourHas(const std::string& knob) const {
  return std::any_of(movables_.begin(), movables_.end(),
                     [&](const Movable& m) { return !m.subject() && m.knob->key == knob; });
}

Action Moves::MoveTo(const Movable& m, double to, const std::string& reason) {
  const double from = Level(m);
  allocation_.Set(m.tenant, m.knob->key, to);
  return {.tenant = m.tenant, .knob = m.knob->key, .from = from, .to = to, .from_text = m.Text(from),
          .to_text = m.Text(to), .reason = reason};
}

std::vector<Action> Moves::Shift(const std::string& knob, bool toward_subject, const std::string& reason) {
  const Movable* subject = nullptr;
  for (const auto& m : movables_) {
    if (m.subject() && m.knob->key == knob) subject = &m;
  }
  // Room in units on a side: toward its bound. A shared knob moves whole units only, so what
  // one side gives the other takes; one side alone may end on its bound with less.
  auto room = [&](const Movable& m, bool grows) {
    return (grows ? m.upper - Level(m) : Level(m) - m.lower) / m.unit;
  };
  const Movable* neighbour = nullptr;  // the one that gives (toward) or takes (away)
  double best_units = 0;
  bool neighbours = false;
  for (const auto& m : movables_) {
    if (m.subject() || m.knob->key != knob) continue;
    neighbours = true;
    const double units = room(m, !toward_subject);
    if (units > (subject ? 1 - 1e-9 : 1e-9) && units > best_units) best_units = units, neighbour = &m;
  }
  const bool subject_can = subject && room(*subject, toward_subject) > (neighbours ? 1 - 1e-9 : 1e-9);
  std::vector<Action> out;
  // A shared knob changes hands or stays; one side's knob moves on that side alone.
  if (subject && neighbours && !(subject_can && neighbour)) return out;
  if (subject && subject_can) out.push_back(MoveTo(*subject, subject->Step(Level(*subject), toward_subject ? 1 : -1), reason));
  if (neighbour) out.push_back(MoveTo(*neighbour, neighbour->Step(Level(*neighbour), toward_subject ? -1 : 1), reason));
  return out;
}

std::vector<Action> Moves::NeighboursToLowest(const std::string& reason) {
  std::vector<Action> out;
  std::map<std::string, double> given;  // knob -> what the neighbours gave up
  for (const auto& m : movables_) {
    if (!m.subject() && Level(m) > m.lower) {
      given[m.knob->key] += Level(m) - m.lower;
      out.push_back(MoveTo(m, m.lower, reason));
    }
  }
  // What they gave up of a shared knob goes to the subject, as far as its upper bound.
  for (const auto& m : movables_) {
    auto g = given.find(m.knob->key);
    if (m.subject() && g != given.end() && Level(m) < m.upper) {
      out.push_back(MoveTo(m, std::min(m.upper, Level(m) + g->second), reason));
    }
  }
  return out;
}

std::vector<Action> Moves::Undo(const std::vector<Action>& done, const std::string& reason) {
  std::vector<Action> out;
  for (auto it = done.rbegin(); it != done.rend(); ++it) {
    for (const auto& m : movables_) {
      if (m.tenant == it->tenant && m.knob->key == it->knob) out.push_back(MoveTo(m, it->from, reason));
    }
  }
  return out;
}

}  // namespace ream
