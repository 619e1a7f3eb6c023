#!/bin/sh
# Build the mrdeboo-baloot adapter: compile adapter.cpp with the engine's core rules
# (src/core/{card,cards,rules,project,scoring}.cpp) into $BUILD_DIR/adapter (default build/ here).
# Usage: build.sh ENGINE_SOURCE_DIR   (a checkout of https://github.com/MrDeboo/Baloot, README.md)
# Needs a C++ compiler with C++23 enough for the engine (g++ 12 with -std=c++2b works) and
# nlohmann/json (Debian: apt-get install nlohmann-json3-dev). CXX overrides the compiler.
set -eu
if [ $# -ne 1 ] || [ ! -f "$1/src/core/scoring.cpp" ]; then
  echo "usage: $0 ENGINE_SOURCE_DIR   (a checkout of MrDeboo/Baloot: src/core/scoring.cpp)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
# the checkout's own commit only: a plain source tree inside another git repository must not
# report that repository's HEAD
if [ -z "${ENGINE_COMMIT:-}" ] && [ -e "$src/.git" ]; then ENGINE_COMMIT=$(git -C "$src" rev-parse HEAD); fi
commit=${ENGINE_COMMIT:-unknown}
out=${BUILD_DIR:-$here/build}   # BUILD_DIR: where the adapter is written (default build/ here)
mkdir -p "$out"
${CXX:-g++} -std=c++2b -O2 -Wall -I"$src/src" -DMRDEBOO_COMMIT="\"$commit\"" \
  "$here/adapter.cpp" "$src/src/core/card.cpp" "$src/src/core/cards.cpp" \
  "$src/src/core/rules.cpp" "$src/src/core/project.cpp" "$src/src/core/scoring.cpp" \
  -o "$out/adapter"
echo "built $out/adapter (engine commit $commit)"
