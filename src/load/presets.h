// Named workloads that set several [load] keys at once (`ream load --preset NAME`, `[load]
// preset`): each the source's own parameters, cited in docs/load.md. A key given beside a
// preset overrides the preset's value for it.
#pragma once

#include <string_view>

#include "platform/status.h"

namespace ream {

struct LoadPreset {
  const char* name;
  const char* key_bytes;    // a distribution's text (load/distribution.h)
  const char* value_bytes;
  const char* arrival;
  double get_ratio;
  const char* source;       // where the parameters come from, stored with the run
};

// The preset called `name`. InvalidArgument naming the known ones, and saying why for the
// Facebook pools that have no published model.
Result<LoadPreset> FindLoadPreset(std::string_view name);

}  // namespace ream
