#!/usr/bin/env bash
# Builds mutilate (memcached's load generator, github.com/leverich/mutilate) from a checkout of
# its source, for bench/peers.sh. Debian does not package it, and ream downloads nothing: give
# it the source. Its SConstruct is Python 2, which Debian 12's scons cannot read, so this
# compiles it directly, without the ZeroMQ agent mode (one mutilate process is the peer here).
#
#   bench/build-mutilate.sh SRC_DIR [BUILD_DIR]   -> BUILD_DIR/peers/mutilate (default build)
# Needs libevent-dev and gengetopt (scripts/install-deps).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:?usage: bench/build-mutilate.sh SRC_DIR [BUILD_DIR]}
# Absolute: the compile below runs in a temporary directory.
out=$(realpath -m "${2:-$here/build}")/peers
[ -f "$src/mutilate.cc" ] && [ -f "$src/cmdline.ggo" ] ||
  { echo "build-mutilate.sh: $src is not a mutilate checkout (no mutilate.cc, cmdline.ggo)" >&2; exit 2; }
for tool in g++ gengetopt; do
  command -v "$tool" >/dev/null || { echo "build-mutilate.sh: $tool is missing; run scripts/install-deps" >&2; exit 2; }
done
[ -f /usr/include/event2/event.h ] || { echo "build-mutilate.sh: libevent-dev is missing; run scripts/install-deps" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/*.cc "$src"/*.h "$src/cmdline.ggo" "$work/"
cd "$work"
# What its SConstruct's configure step would find on Debian 12.
cat > config.h <<'H'
#define __STDC_FORMAT_MACROS 1
#define HAVE_LIBEVENT 1
#define HAVE_DECL_EVENT_BASE_FLAG_PRECISE_TIMER 1
#define HAVE_LIBPTHREAD 1
#define HAVE_CLOCK_GETTIME 1
#define HAVE_PTHREAD_BARRIER_INIT 1
H
gengetopt < cmdline.ggo
mkdir -p "$out"
g++ -std=c++11 -D_GNU_SOURCE -O3 -g -w -o "$out/mutilate" mutilate.cc cmdline.cc log.cc \
  distributions.cc util.cc Connection.cc Protocol.cc Generator.cc -levent -lpthread -lrt
echo "build-mutilate.sh: built $out/mutilate from $src ($(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout"))"
