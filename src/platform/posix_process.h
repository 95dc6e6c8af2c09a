// Internal to platform/: the real machine's process spawning behind PosixPlatform::Spawn.
#pragma once

#include <memory>
#include <string>

#include "platform/process.h"

namespace ream {

// Starts `options.argv` with `exe` as the resolved path of argv[0].
Result<std::unique_ptr<ChildProcess>> PosixSpawn(const SpawnOptions& options,
                                                const std::string& exe);

}  // namespace ream
