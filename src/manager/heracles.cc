// Heracles' top-level rules over one subject and its best-effort neighbours (manager/heracles.h).
#include "manager/heracles.h"

#include "platform/text.h"

namespace ream {
namespace {

class Heracles : public Policy {
 public:
  Heracles(const ManagerSpec& spec, Moves moves)
      : spec_(spec), moves_(std::move(moves)), knobs_(moves_.Knobs()) {}

  std::string name() const override { return "heracles"; }
  const Allocation& allocation() const override { return moves_.allocation(); }

  Decision Decide(const WindowFigures& w) override {
    if (std::optional<Decision> none = Unmeasured(w)) return *none;
    Decision d{.window = w.index};
    const std::optional<double> slack = w.Slack();
    d.slack = *slack;
    const double load = w.load_qps / spec_.peak_qps;
    const std::string load_text = Fmt("%.0f %%", load * 100) + " of the peak";
    if (*slack < 0) {
      disabled_ = true;
      cooldown_until_ = w.index + 1 + spec_.cooldown_windows;
      d.note = "slack " + SlackText(*slack) + " below 0: the neighbours disabled, cooling down for " +
               std::to_string(spec_.cooldown_windows) + " windows";
      d.actions = moves_.NeighboursToLowest(d.note);
      return d;
    }
    if (w.index < cooldown_until_) {
      d.note = "cooling down after a negative slack until window " + std::to_string(cooldown_until_) +
               ": the neighbours stay disabled";
      return d;
    }
    if (load > spec_.disable_above_load) {
      disabled_ = true;
      d.note = "load " + load_text + " above " + Fmt("%.0f %%", spec_.disable_above_load * 100) +
               ": the neighbours disabled";
      d.actions = moves_.NeighboursToLowest(d.note);
      return d;
    }
    std::string enabled;
    if (disabled_) {
      if (load >= spec_.enable_below_load) {
        d.note = "load " + load_text + " not below " + Fmt("%.0f %%", spec_.enable_below_load * 100) +
                 ": the neighbours stay disabled";
        return d;
      }
      disabled_ = false;
      enabled = "load " + load_text + ": the neighbours enabled; ";
    }
    if (*slack < spec_.shrink_below) {
      return Turn(true, enabled + "slack " + SlackText(*slack) + " below " + SlackText(spec_.shrink_below) +
                               ": the neighbours shrink a unit", std::move(d));
    }
    if (*slack < spec_.stop_growth_below) {
      d.note = enabled + "slack " + SlackText(*slack) + " below " + SlackText(spec_.stop_growth_below) +
               ": the neighbours' growth stopped";
      return d;
    }
    return Turn(false, enabled + "slack " + SlackText(*slack) + " and load " + load_text +
                              ": the neighbours grow a unit", std::move(d));
  }

 private:
  // A unit of the first neighbour resource in turn that can move; the turn passes on after a
  // growth, so each resource grows in its turn as each of Heracles' sub-controllers grows its own.
  Decision Turn(bool shrink, const std::string& why, Decision d) {
    for (size_t i = 0; i < knobs_.size(); ++i) {
      const size_t at = (cursor_ + i) % knobs_.size();
      if (!moves_.NeighbourHas(knobs_[at])) continue;
      std::vector<Action> done = moves_.Shift(knobs_[at], shrink, why + " (" + knobs_[at] + ")");
      if (done.empty()) continue;
      cursor_ = shrink ? at : (at + 1) % knobs_.size();
      d.actions = std::move(done);
      d.note = why + ": " + knobs_[at];
      return d;
    }
    d.note = why + ", but every neighbour resource is at its " + (shrink ? "lower" : "upper") + " bound";
    return d;
  }

  ManagerSpec spec_;
  Moves moves_;
  std::vector<std::string> knobs_;
  size_t cursor_ = 0;
  bool disabled_ = false;
  int64_t cooldown_until_ = 0;  // the first window after the cooldown
};

}  // namespace

std::unique_ptr<Policy> MakeHeracles(const ManagerSpec& spec, Moves moves) {
  return std::make_unique<Heracles>(spec, std::move(moves));
}

}  // namespace ream
