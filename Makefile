# The two commands a user needs. Each does all of its own set-up on a fresh Debian 12 machine.
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
JOBS ?= 2
# A rebuild of a clean clone on the same machine reuses earlier compilations (ccache, installed
# by scripts/install-deps); paths are taken relative to the clone so any checkout shares them.
# The launcher is chosen when the build configures, after `deps` has run: a test of it here, when
# make reads this file, would miss the ccache that the same `make demo` is about to install, and
# the next `make test` would reconfigure with it and rebuild every target.
export CCACHE_BASEDIR := $(CURDIR)
# ccache hashes the working directory into every -g compilation unless told not to, so a clone
# in another directory would miss every entry (18 % hits here); the debug info's directory then
# names the clone that filled the cache, which no test reads.
export CCACHE_NOHASHDIR := 1
# The tests' precompiled headers (cmake/pch.cmake) are cacheable only with these.
export CCACHE_SLOPPINESS := pch_defines,time_macros

.PHONY: all deps build demo test sanitize install deb clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) \
	  $$(command -v ccache >/dev/null 2>&1 && echo -DCMAKE_CXX_COMPILER_LAUNCHER=$$(command -v ccache)) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# ream's main job on its built-in default; ARGS go to `ream run` (`make demo ARGS=--keep-awake`).
demo: build
	@scripts/demo $(BUILD) $(ARGS)

# The whole CTest suite: unit, integration (root, real kernel interfaces), peers, browser;
# then the unit label under ASan+UBSan and the generator's and monitor's tests under TSan.
test: build
	@cd $(BUILD) && ctest --output-on-failure --timeout 600 -j $(JOBS)
	@JOBS=$(JOBS) scripts/sanitizer-tests

# The sanitizer runs alone (build-asan/, build-tsan/; `scripts/sanitizer-tests asan` for one).
sanitize: deps
	@JOBS=$(JOBS) scripts/sanitizer-tests

# ream, its libraries, report assets, examples and docs under PREFIX (cmake/install.cmake).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian package (build/ream_<version>_<arch>.deb); scripts/check-deb installs it in a
# fresh Debian 12 chroot.
deb: build
	@cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD)
