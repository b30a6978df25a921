#!/usr/bin/env bash
# The debug build of the Graph module alone with two versions of its generated code, alternated (A B A B): does a
# generator change move the time to build all of Graph? `Benchmarks/graph-generated-ab.sh BASE` compares
# Sources/Graph/Generated at BASE with the working tree's; the runtime is the working tree's in both. Every file of
# the module is rewritten before each build, so each build compiles all of it. Prints wall time, CPU and peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: Benchmarks/graph-generated-ab.sh BASE-REVISION}
generated=Sources/Graph/Generated
saved=$(mktemp -d)
cp -r "$generated" "$saved/current"
restore() { rm -rf "$generated"; cp -r "$saved/current" "$generated"; rm -rf "$saved"; }
trap restore EXIT
use() {
  rm -rf "$generated"
  if [ "$1" = base ]; then git checkout -q "$base" -- "$generated"; git reset -q -- "$generated"; else cp -r "$saved/current" "$generated"; fi
}
build_graph() {
  sync
  /usr/bin/time -o "$saved/time" -f "%e s wall, %U+%S s CPU, %M KB peak" swift build --target Graph > "$saved/log" 2>&1 ||
    { tail -5 "$saved/log" >&2; exit 1; }
  cat "$saved/time"
}
swift build --target BinderyRuntime > /dev/null
for round in 1 2; do
  use base; echo "base ($base), round $round: $(build_graph)"
  use current; echo "working tree, round $round: $(build_graph)"
done
