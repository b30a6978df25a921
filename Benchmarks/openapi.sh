#!/usr/bin/env bash
# `make bench-openapi` (and the end of `make bench`): a large public OpenAPI spec that nobody here wrote, generated
# by bindery-gen and by swift-openapi-generator 1.14.3 (types and client), then each module built in debug from
# clean, side by side in one run. The spec is not part of the repository: name it with BINDERY_OPENAPI_SPEC, for
# example Box's openapi.json from the box/box-openapi repository. Without it the section is skipped.
# Writes the `openapi` section of BENCHMARKS.md. Takes 10-20 minutes the first time (building the other generator).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
spec=${BINDERY_OPENAPI_SPEC:-}
if [ -z "$spec" ] || [ ! -f "$spec" ]; then
  echo "bench-openapi: skipped: set BINDERY_OPENAPI_SPEC to a large OpenAPI JSON file (Box's openapi.json, say)."
  exit 0
fi
spec=$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")
work="$root/.build-bench/openapi"
mkdir -p "$work"
log="$work/log.txt"; : > "$log"
say() { echo "bench-openapi: $*" | tee -a "$log"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >>"$log" 2>&1; cat "$work/time.txt"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
gib() { awk -v k="$1" 'BEGIN {printf "%.2f", k / 1048576}'; }
mark() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "✓" : "✗"}'; }

say "building bindery-gen (release)"
swift build -c release --product bindery-gen >>"$log" 2>&1
gen=$(swift build -c release --show-bin-path)/bindery-gen

say "building swift-openapi-generator 1.14.3 (release; not measured)"
mkdir -p "$work/tool/Sources/Tool"
cat > "$work/tool/Package.swift" <<'PKG'
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
    name: "Tool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")],
    targets: []
)
PKG
(cd "$work/tool" && swift build -c release --product swift-openapi-generator >>"$log" 2>&1)
other=$(cd "$work/tool" && swift build -c release --show-bin-path)/swift-openapi-generator

say "generating with each (3 runs each, fresh output folders)"
ours_gen=(); theirs_gen=()
for run in 1 2 3; do
  rm -rf "$work/bindery/Sources/Box"
  read -r wall _ _ _ <<<"$(measure "$gen" "$spec" --output "$work/bindery/Sources/Box")"
  ours_gen+=("$wall")
  rm -rf "$work/soag/Sources/Box"; mkdir -p "$work/soag/Sources/Box"
  read -r wall _ _ _ <<<"$(measure "$other" generate "$spec" --mode types --mode client \
    --access-modifier public --output-directory "$work/soag/Sources/Box")"
  theirs_gen+=("$wall")
done
diagnostics=$("$gen" "$spec" --output "$work/bindery/Sources/Box" 2>&1 || true)
warnings=$(grep -c 'warning:' <<<"$diagnostics" || true)
errors=$(grep -c 'error:' <<<"$diagnostics" || true)
ours_gen_med=$(printf '%s\n' "${ours_gen[@]}" | median)
theirs_gen_med=$(printf '%s\n' "${theirs_gen[@]}" | median)
ours_lines=$(cat "$work"/bindery/Sources/Box/*.swift | wc -l)
theirs_lines=$(cat "$work"/soag/Sources/Box/*.swift | wc -l)

identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
cat > "$work/bindery/Package.swift" <<PKG
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "BinderyBox",
    dependencies: [.package(path: "../../..")],
    targets: [.target(name: "Box", dependencies: [.product(name: "BinderyRuntime", package: "$identity")])],
    swiftLanguageModes: [.v6]
)
PKG
cat > "$work/soag/Package.swift" <<'PKG'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "OpenAPIBox",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4")],
    targets: [.target(name: "Box", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")])],
    swiftLanguageModes: [.v6]
)
PKG

# The module alone, from clean: its runtime is built first and not counted.
build() {  # package runtime-target
  rm -rf "$work/$1/.build"
  (cd "$work/$1" && swift build --target "$2" >>"$log" 2>&1)
  (cd "$work/$1" && measure swift build --target Box -j 2)
}
say "debug builds (swift-openapi-generator's output, then Bindery's)"
read -r theirs_wall theirs_user theirs_sys theirs_rss <<<"$(build soag OpenAPIRuntime)"
read -r ours_wall ours_user ours_sys ours_rss <<<"$(build bindery BinderyRuntime)"
# Warnings in the Bindery module, counted on a rebuild of its files (the timed build's log holds both packages).
touch "$work"/bindery/Sources/Box/*.swift
compile_warnings=$( (cd "$work/bindery" && swift build --target Box 2>&1) | grep -c 'warning:' || true)

when=$(date -u +%Y-%m-%d)
name=$(basename "$spec")
cat > "$work/section.md" <<MD
<!-- openapi:begin (written by Benchmarks/openapi.sh; edits here are replaced on the next run) -->
## A large public OpenAPI spec: Bindery and swift-openapi-generator side by side

Produced by \`BINDERY_OPENAPI_SPEC=…/$name make bench-openapi\` on $when, $(nproc) cores,
$(swift --version 2>&1 | head -1). The spec ($(du -k "$spec" | cut -f1) KB) is not in the repository. Each module is
built in debug from clean, after its runtime (BinderyRuntime; OpenAPIRuntime 1.13.4), which is not counted.

| what | swift-openapi-generator 1.14.3 | Bindery | Bindery ÷ it | target |
|---|---|---|---|---|
| generation, whole command (median of 3) | $theirs_gen_med s | $ours_gen_med s | $(ratio "$ours_gen_med" "$theirs_gen_med") | |
| generated Swift | $theirs_lines lines | $ours_lines lines | | |
| debug build of the module, wall | $theirs_wall s | $ours_wall s | $(ratio "$ours_wall" "$theirs_wall") | ≤ 0.50 $(mark "$(ratio "$ours_wall" "$theirs_wall")" 0.5) |
| debug build, peak memory | $(gib "$theirs_rss") GiB | $(gib "$ours_rss") GiB | $(ratio "$ours_rss" "$theirs_rss") | ≤ 0.50 $(mark "$(ratio "$ours_rss" "$theirs_rss")" 0.5) |

bindery-gen reported $errors errors and $warnings warnings (kept on purpose; Docs/OpenAPIExtensions.md says which and why); the
Bindery module compiled with $compile_warnings warnings.
<!-- openapi:end -->
MD
cat "$work/section.md"
Benchmarks/write-section.sh openapi "$work/section.md"
say "wrote the openapi section of BENCHMARKS.md"
