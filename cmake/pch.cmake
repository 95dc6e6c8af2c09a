# Precompiled headers (REAM_PCH, off by default; scripts/sanitizer-tests turns them on for its
# clang trees). A clang -O0 ASan test batch spent 5.7 s of its 16.3 s in the front end, and a
# precompiled nlohmann/json, GoogleTest and standard library took 2.3 s of that away; GCC's
# larger precompiled headers showed no gain over a whole build here. Two headers serve every
# target: one for libraries and executables, one with GoogleTest for tests.
# Only standard and third-party headers go in: a ream header here would hide from the layering
# check which layer a file includes. The main tree builds without them, so a file that leans on
# the precompiled header instead of its own #include still fails to compile there.
option(REAM_PCH "Precompiled headers for the libraries and tests" OFF)
if(REAM_FUZZ)
  set(REAM_PCH OFF)
endif()

set(ream_pch_std
  <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstdio> <cstdlib> <cstring>
  <filesystem> <fstream> <functional> <map> <memory> <mutex> <optional> <random> <set>
  <sstream> <string> <string_view> <thread> <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp>)

if(REAM_PCH)
  file(WRITE ${CMAKE_BINARY_DIR}/pch/pch.cc "// Compiles the precompiled headers (cmake/pch.cmake).\n")
  add_library(ream_pch_lib STATIC ${CMAKE_BINARY_DIR}/pch/pch.cc)
  target_link_libraries(ream_pch_lib PRIVATE nlohmann_json::nlohmann_json)
  target_precompile_headers(ream_pch_lib PRIVATE ${ream_pch_std})
  add_library(ream_pch_test STATIC ${CMAKE_BINARY_DIR}/pch/pch.cc)
  target_link_libraries(ream_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest GTest::gmock)
  # The definitions every test target has (ream_test), so the test header suits each.
  target_compile_definitions(ream_pch_test PRIVATE
    REAM_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    REAM_BINARY="${CMAKE_BINARY_DIR}/ream")
  target_precompile_headers(ream_pch_test PRIVATE ${ream_pch_std} <gtest/gtest.h> <gmock/gmock.h>)
endif()

# ream_use_pch(<target> lib|test)
function(ream_use_pch target kind)
  if(REAM_PCH)
    target_precompile_headers(${target} REUSE_FROM ream_pch_${kind})
  endif()
endfunction()
