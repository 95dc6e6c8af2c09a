# Precompiled headers: nlohmann/json, GoogleTest and the standard library parsed once per tree.
# Both are off by default: a precompiled header holds its tree's absolute paths, so ccache (which
# `make` uses when installed) cannot reuse an object compiled with one in a checkout elsewhere,
# and a clean clone then compiled every test batch again (62 of its 103 objects, 172 s here with
# a warm cache). Without them a clean clone reuses the cache; a cold build pays what they saved:
# - REAM_PCH: for the test targets. A gcc test batch compiled in 5.4-5.6 s with them and
#   6.8 s without (monitor_test, three runs each, -O2 -g -fno-var-tracking).
# - REAM_PCH_LIBS: for the libraries and executables too. A clang -O0 ASan batch spent 5.7 s of
#   its 16.3 s in the front end, and the precompiled headers took 2.3 s of that away; the ASan
#   tree built in 108 s against 142 s. A source of ream itself that leans on the precompiled
#   header instead of its own #include fails to compile in a tree without them.
# Only standard and third-party headers go in: a ream header here would hide from the layering
# check which layer a file includes.
option(REAM_PCH "Precompiled headers for the test targets" OFF)
option(REAM_PCH_LIBS "Precompiled headers for the libraries and executables too" OFF)
if(REAM_FUZZ)
  set(REAM_PCH OFF)
  set(REAM_PCH_LIBS OFF)
endif()

set(ream_pch_std
  <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstdio> <cstdlib> <cstring>
  <filesystem> <fstream> <functional> <map> <memory> <mutex> <optional> <random> <set>
  <sstream> <string> <string_view> <thread> <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp>)

if(REAM_PCH OR REAM_PCH_LIBS)
  # A precompiled header GCC cannot use (built with other flags) is said, not silently replaced
  # by parsing the headers again.
  add_compile_options($<$<CXX_COMPILER_ID:GNU>:-Winvalid-pch>)
  file(WRITE ${CMAKE_BINARY_DIR}/pch/pch.cc "// Compiles the precompiled headers (cmake/pch.cmake).\n")
endif()
if(REAM_PCH_LIBS)
  add_library(ream_pch_lib STATIC ${CMAKE_BINARY_DIR}/pch/pch.cc)
  target_link_libraries(ream_pch_lib PRIVATE nlohmann_json::nlohmann_json)
  target_precompile_headers(ream_pch_lib PRIVATE ${ream_pch_std})
endif()
if(REAM_PCH)
  add_library(ream_pch_test STATIC ${CMAKE_BINARY_DIR}/pch/pch.cc)
  target_link_libraries(ream_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest GTest::gmock)
  # The forced include every test target has (ream_test), so the test header suits each.
  target_compile_options(ream_pch_test PRIVATE -include ${CMAKE_SOURCE_DIR}/cmake/test_paths.h)
  target_precompile_headers(ream_pch_test PRIVATE ${ream_pch_std} <gtest/gtest.h> <gmock/gmock.h>)
endif()

# ream_use_pch(<target> lib|test)
function(ream_use_pch target kind)
  if((kind STREQUAL "test" AND REAM_PCH) OR (kind STREQUAL "lib" AND REAM_PCH_LIBS))
    target_precompile_headers(${target} REUSE_FROM ream_pch_${kind})
  endif()
endfunction()
