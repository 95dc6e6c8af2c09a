// PARTIES' rules over one subject and its neighbours (manager/parties.h).
#include "manager/parties.h"

#include <algorithm>
#include <map>
#include <optional>

#include "platform/text.h"

namespace ream {
namespace {

class Parties : public Policy {
 public:
  Parties(const ManagerSpec& spec, Moves moves)
      : grow_below_(spec.grow_below),
        shrink_above_(spec.shrink_above),
        skip_windows_(spec.skip_windows),
        moves_(std::move(moves)),
        knobs_(moves_.Knobs()) {}

  std::string name() const override { return "parties"; }
  const Allocation& allocation() const override { return moves_.allocation(); }

  Decision Decide(const WindowFigures& w) override {
    if (std::optional<Decision> none = Unmeasured(w)) {
      if (pending_) none->note += "; the last move is judged on the next valid window";
      return *none;
    }
    Decision d{.window = w.index};
    const std::optional<double> slack = w.Slack();
    d.slack = *slack;
    if (pending_) {
      Pending p = std::move(*pending_);
      pending_.reset();
      // An upsize helps when the slack rose (or QoS is met with margin again); a downsize is
      // harmless while the slack stays at or above grow_below.
      const bool helped = p.upsize ? (*slack > p.slack_before + 1e-9 || *slack >= grow_below_) : *slack >= grow_below_;
      if (!helped) {
        const std::string reason =
            p.upsize ? "reverted: a unit of " + p.knob + " toward the subject left its slack at " + SlackText(*slack) +
                           " (" + SlackText(p.slack_before) + " before)"
                     : "reverted: giving back a unit of " + p.knob + " took the subject's slack to " +
                           SlackText(*slack) + ", below " + SlackText(grow_below_);
        d.actions = moves_.Undo(p.actions, reason);
        skip_until_[p.knob] = w.index + 1 + skip_windows_;
        // The next resource in turn is tried next.
        if (p.upsize) cursor_ = (Index(p.knob) + 1) % knobs_.size();
        d.note = reason + "; " + p.knob + " is skipped for " + std::to_string(skip_windows_) + " windows";
        return d;
      }
    }
    if (*slack < grow_below_) {
      return Move(w, *slack, true,
                  "slack " + SlackText(*slack) + " below " + SlackText(grow_below_) + ": a unit toward the subject",
                  std::move(d));
    }
    if (*slack > shrink_above_) {
      return Move(w, *slack, false,
                  "slack " + SlackText(*slack) + " above " + SlackText(shrink_above_) + ": a unit given back", std::move(d));
    }
    d.note = "slack " + SlackText(*slack) + " within [" + SlackText(grow_below_) + ", " + SlackText(shrink_above_) +
             "]: holding";
    return d;
  }

 private:
  struct Pending {
    std::string knob;
    bool upsize = true;
    double slack_before = 0;
    std::vector<Action> actions;
  };

  size_t Index(const std::string& knob) const {
    return static_cast<size_t>(std::find(knobs_.begin(), knobs_.end(), knob) - knobs_.begin());
  }

  // The first resource in turn, from the cursor, that is not skipped and can move.
  Decision Move(const WindowFigures& w, double slack, bool upsize, const std::string& why, Decision d) {
    std::vector<std::string> skipped;
    for (size_t i = 0; i < knobs_.size(); ++i) {
      const size_t at = (cursor_ + i) % knobs_.size();
      const std::string& knob = knobs_[at];
      if (auto s = skip_until_.find(knob); s != skip_until_.end() && w.index < s->second) {
        skipped.push_back(knob);
        continue;
      }
      std::vector<Action> done = moves_.Shift(knob, upsize, why + " (" + knob + ")");
      if (done.empty()) continue;
      cursor_ = at;
      pending_ = Pending{.knob = knob, .upsize = upsize, .slack_before = slack, .actions = done};
      d.actions = std::move(done);
      d.note = why + ": " + knob;
      return d;
    }
    d.note = why + ", but nothing can move: every resource is at its bound" +
             (skipped.empty() ? std::string() : " or skipped after a revert (" + Join(skipped, ", ") + ")");
    return d;
  }

  double grow_below_, shrink_above_;
  int skip_windows_;
  Moves moves_;
  std::vector<std::string> knobs_;
  size_t cursor_ = 0;
  std::map<std::string, int64_t> skip_until_;  // knob -> the first window it is tried again
  std::optional<Pending> pending_;             // the last move, judged on the next valid window
};

}  // namespace

std::unique_ptr<Policy> MakeParties(const ManagerSpec& spec, Moves moves) {
  return std::make_unique<Parties>(spec, std::move(moves));
}

}  // namespace ream
