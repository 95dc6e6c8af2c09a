// The policies' common types and their factory (manager/policy.h).
#include "manager/policy.h"

#include "manager/heracles.h"
#include "manager/moves.h"
#include "manager/parties.h"

namespace ream {

std::optional<double> WindowFigures::Slack() const {
  if (!tail_us || target_us <= 0) return std::nullopt;
  return (target_us - *tail_us) / target_us;
}

std::string Action::ToString() const {
  return tenant + " " + knob + " " + from_text + " -> " + to_text + ": " + reason;
}

Result<std::unique_ptr<Policy>> MakePolicy(const ManagerSpec& spec, const Allocation& start) {
  std::vector<Movable> movables = MovablesOf(spec);
  if (movables.empty()) return InvalidArgument("the manager has no resource to move ([[manager.resource]])");
  REAM_ASSIGN_OR_RETURN(Allocation a, StartingAllocation(movables, start));
  Moves moves(std::move(movables), std::move(a));
  if (spec.policy == "parties") return MakeParties(spec, std::move(moves));
  if (spec.policy == "heracles") {
    if (spec.peak_qps <= 0) {
      return InvalidArgument("policy heracles needs the subject's peak load (peak_qps) to compare its load with");
    }
    return MakeHeracles(spec, std::move(moves));
  }
  return InvalidArgument("no manager policy \"" + spec.policy + "\" (parties, heracles)");
}

}  // namespace ream
