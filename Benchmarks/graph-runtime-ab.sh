#!/usr/bin/env bash
# The debug build of the Graph module alone at two runtimes, alternated (A B A B): does a runtime change move
# the time to build all of Graph? `Benchmarks/graph-runtime-ab.sh BASE` compares Sources/BinderyRuntime at BASE
# with the working tree's; Graph's generated code is the working tree's in both. Each build starts from a
# rebuilt runtime and no Graph build products. Prints wall time, CPU and peak memory of each build.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: Benchmarks/graph-runtime-ab.sh BASE-REVISION}
if [ -n "$(git status --porcelain -- Sources/BinderyRuntime)" ]; then
  echo "graph-runtime-ab: commit or stash the changes under Sources/BinderyRuntime first" >&2
  exit 1
fi
debug=.build/debug
runtime_at() {
  git checkout -q "$1" -- Sources/BinderyRuntime
  # Files the revision does not have go too (checkout of a path adds and changes, never removes).
  git ls-files --others --exclude-standard -- Sources/BinderyRuntime | xargs -r rm -f
  comm -13 <(git ls-tree -r --name-only "$1" -- Sources/BinderyRuntime | sort) \
    <(git ls-files -- Sources/BinderyRuntime | sort) | xargs -r rm -f
}
restore() { git checkout -q HEAD -- Sources/BinderyRuntime; git status --short -- Sources/BinderyRuntime; }
trap restore EXIT
build_graph() {
  # SwiftPM's incremental build can miss a change of a public struct's layout in a dependency: start clean.
  rm -rf "$debug/BinderyRuntime.build" "$debug"/Modules/BinderyRuntime.* "$debug/Graph.build" "$debug"/Modules/Graph.*
  swift build --target BinderyRuntime > /dev/null
  sync
  /usr/bin/time -f "%e s wall, %U+%S s CPU, %M KB peak" swift build --target Graph 2>&1 > /dev/null | tail -1
}
for round in 1 2; do
  runtime_at "$base"; echo "base ($base), round $round: $(build_graph)"
  restore > /dev/null; echo "working tree, round $round: $(build_graph)"
done
