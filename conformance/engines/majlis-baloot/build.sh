#!/bin/sh
# Build the majlis-baloot adapter: bundle adapter.ts with the engine's lib/baloot/*.ts into
# $BUILD_DIR/adapter.mjs, default build/ here (one file, plain Node >= 18). Usage: build.sh ENGINE_SOURCE_DIR
# ENGINE_SOURCE_DIR is a checkout of https://github.com/Motl1234/majlis-baloot (see README.md).
# esbuild is taken from PATH, or from ESBUILD, or fetched with npx (npm registry).
set -eu
if [ $# -ne 1 ] || [ ! -f "$1/lib/baloot/engine.ts" ]; then
  echo "usage: $0 ENGINE_SOURCE_DIR   (a checkout of Motl1234/majlis-baloot: lib/baloot/engine.ts)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
esbuild=${ESBUILD:-}
if [ -z "$esbuild" ]; then
  if command -v esbuild >/dev/null 2>&1; then esbuild=esbuild; else esbuild="npx --yes esbuild@0.24.0"; fi
fi
# the checkout's own commit only: a plain source tree inside another git repository must not
# report that repository's HEAD
if [ -z "${ENGINE_COMMIT:-}" ] && [ -e "$src/.git" ]; then ENGINE_COMMIT=$(git -C "$src" rev-parse HEAD); fi
commit=${ENGINE_COMMIT:-unknown}
out=${BUILD_DIR:-$here/build}   # BUILD_DIR: where the adapter is written (default build/ here)
mkdir -p "$out"
$esbuild "$here/adapter.ts" --bundle --platform=node --format=esm --target=node18 \
  --alias:majlis-engine="$src/lib/baloot" \
  --define:process.env.MAJLIS_COMMIT="\"$commit\"" \
  --outfile="$out/adapter.mjs" --log-level=warning
echo "built $out/adapter.mjs (engine commit $commit)"
