// Where a test finds the source tree and the ream binary: REAM_SOURCE_DIR and REAM_BINARY, both
// `const char*`. Force-included into every test (ream_test in CMakeLists.txt). The paths live in
// one generated translation unit (build/test_paths.cc), not in -D flags, so no test's compilation
// names the clone's directory and ccache serves a clone in any directory from one cache.
#pragma once

namespace ream_test_paths {
extern const char* const kSourceDir;
extern const char* const kBinary;
}  // namespace ream_test_paths

#define REAM_SOURCE_DIR (::ream_test_paths::kSourceDir)
#define REAM_BINARY (::ream_test_paths::kBinary)
