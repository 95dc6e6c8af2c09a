// The preset table (presets.h).
#include "load/presets.h"

#include <string>

namespace ream {
namespace {

// Facebook's ETC pool as mutilate replays it: key sizes from a generalized extreme value
// distribution, value sizes from measured small sizes and a generalized Pareto beyond them,
// inter-arrival gaps from a generalized Pareto (section 5 and Table 5 of Atikoglu et al.,
// SIGMETRICS 2012; mutilate's fb_key, fb_value, fb_ia), and the paper's 30:1 GET/SET ratio.
constexpr LoadPreset kPresets[] = {
    {"etc", "fb_key", "fb_value", "fb_ia", 30.0 / 31.0,
     "Atikoglu et al., Workload Analysis of a Large-Scale Key-Value Store, SIGMETRICS 2012 (ETC); "
     "distributions as mutilate's fb_key, fb_value, fb_ia"},
};

}  // namespace

Result<LoadPreset> FindLoadPreset(std::string_view name) {
  for (const LoadPreset& p : kPresets) {
    if (name == p.name) return p;
  }
  if (name == "usr" || name == "app" || name == "var" || name == "sys") {
    return InvalidArgument("preset '" + std::string(name) +
                           "': Atikoglu et al. (SIGMETRICS 2012) fit a model to the ETC pool only, and mutilate ships "
                           "ETC's alone; give this pool's key_bytes and value_bytes yourself (file:PATH holds sizes "
                           "with their weights)");
  }
  return InvalidArgument("unknown preset '" + std::string(name) + "' (known: etc)");
}

}  // namespace ream
