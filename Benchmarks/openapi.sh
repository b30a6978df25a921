#!/usr/bin/env bash
# `make bench-openapi` (and the end of `make bench`): large public OpenAPI specs that nobody here wrote, each generated
# by bindery-gen and by swift-openapi-generator 1.14.3 (types and client), then each module built in debug from
# clean, side by side in one run. The specs are not part of the repository: name them, separated by spaces, with
# BINDERY_OPENAPI_SPEC, for example Box's openapi.json from the box/box-openapi repository and two more of the largest
# specs of a `make corpus` folder. Without it the section is skipped.
# Writes the `openapi` section of BENCHMARKS.md. Takes 10-20 minutes a spec (and longer the first time, building the
# other generator).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
read -r -a specs <<<"${BINDERY_OPENAPI_SPEC:-}"
if [ "${#specs[@]}" -eq 0 ]; then
  echo "bench-openapi: skipped: set BINDERY_OPENAPI_SPEC to large OpenAPI files, separated by spaces (Box's openapi.json, say)."
  exit 0
fi
for spec in "${specs[@]}"; do
  [ -f "$spec" ] || { echo "bench-openapi: error: no spec at $spec" >&2; exit 2; }
done
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

identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
cat > "$work/bindery-package.swift" <<PKG
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "BinderyAPI",
    dependencies: [.package(path: "../../..")],
    targets: [.target(name: "API", dependencies: [.product(name: "BinderyRuntime", package: "$identity")])],
    swiftLanguageModes: [.v6]
)
PKG
cat > "$work/soag-package.swift" <<'PKG'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "OpenAPIAPI",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4")],
    targets: [.target(name: "API", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")])],
    swiftLanguageModes: [.v6]
)
PKG

# The module alone, from clean: its runtime is built first and not counted.
build() {  # package runtime-target
  rm -rf "$work/$1/.build"
  (cd "$work/$1" && swift build --target "$2" >>"$log" 2>&1)
  (cd "$work/$1" && measure swift build --target API -j 2)
}

rows=""; notes=""; names=""
for spec in "${specs[@]}"; do
  spec=$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")
  name=$(basename "$spec")
  names="$names $name"
  say "$name: generating with each (3 runs each, fresh output folders)"
  mkdir -p "$work/bindery" "$work/soag"
  cp "$work/bindery-package.swift" "$work/bindery/Package.swift"
  cp "$work/soag-package.swift" "$work/soag/Package.swift"
  ours_gen=(); theirs_gen=()
  for run in 1 2 3; do
    rm -rf "$work/bindery/Sources/API"
    read -r wall _ _ _ <<<"$(measure "$gen" "$spec" --output "$work/bindery/Sources/API")"
    ours_gen+=("$wall")
    rm -rf "$work/soag/Sources/API"; mkdir -p "$work/soag/Sources/API"
    if [ "$run" -eq 1 ] && ! "$other" generate "$spec" --mode types --mode client --access-modifier public \
      --output-directory "$work/soag/Sources/API" >"$work/soag-run.txt" 2>&1; then
      theirs_gen=(); break
    fi
    read -r wall _ _ _ <<<"$(measure "$other" generate "$spec" --mode types --mode client \
      --access-modifier public --output-directory "$work/soag/Sources/API")"
    theirs_gen+=("$wall")
  done
  if [ "${#theirs_gen[@]}" -eq 0 ]; then
    # The other generator refuses the spec: say why, and there is nothing of its to build.
    cat "$work/soag-run.txt" >>"$log"
    reason=$(grep -m1 -o 'error: .*' "$work/soag-run.txt" | cut -c8- | sed 's/[`|]//g' | cut -c1-160)
    rows="$rows| $name ($(du -k "$spec" | cut -f1) KB) | fails / $(printf '%s\n' "${ours_gen[@]}" | median) s | – |"
    rows="$rows – | – |"$'\n'
    notes="$notes- $name: swift-openapi-generator stops with \"$reason\"; Bindery generates it."$'\n'
    say "$name: swift-openapi-generator fails: $reason"
    continue
  fi
  diagnostics=$("$gen" "$spec" --output "$work/bindery/Sources/API" 2>&1 || true)
  warnings=$(grep -c 'warning:' <<<"$diagnostics" || true)
  errors=$(grep -c 'error:' <<<"$diagnostics" || true)
  ours_gen_med=$(printf '%s\n' "${ours_gen[@]}" | median)
  theirs_gen_med=$(printf '%s\n' "${theirs_gen[@]}" | median)
  lines() { find "$1" -name '*.swift' -exec cat {} + | wc -l; }
  ours_lines=$(lines "$work/bindery/Sources/API")
  theirs_lines=$(lines "$work/soag/Sources/API")

  say "$name: debug builds (swift-openapi-generator's output, then Bindery's)"
  read -r theirs_wall _ _ theirs_rss <<<"$(build soag OpenAPIRuntime)"
  read -r ours_wall _ _ ours_rss <<<"$(build bindery BinderyRuntime)"
  # Warnings in the Bindery module, counted on a rebuild of its files (the timed build's log holds both packages).
  find "$work/bindery/Sources/API" -name '*.swift' -exec touch {} +
  compile_warnings=$( (cd "$work/bindery" && swift build --target API 2>&1) | grep -c 'warning:' || true)

  build_ratio=$(ratio "$ours_wall" "$theirs_wall")
  memory_ratio=$(ratio "$ours_rss" "$theirs_rss")
  rows="$rows| $name ($(du -k "$spec" | cut -f1) KB) | $theirs_gen_med s / $ours_gen_med s | $theirs_lines / $ours_lines |"
  rows="$rows $theirs_wall s / $ours_wall s = $build_ratio $(mark "$build_ratio" 0.5) |"
  rows="$rows $(gib "$theirs_rss") / $(gib "$ours_rss") GiB = $memory_ratio $(mark "$memory_ratio" 0.5) |"$'\n'
  notes="$notes- $name: bindery-gen reported $errors errors and $warnings warnings; the Bindery module compiled with"
  notes="$notes $compile_warnings warnings."$'\n'
  say "$name: build $build_ratio, memory $memory_ratio of swift-openapi-generator's"
done

when=$(date -u +%Y-%m-%d)
cat > "$work/section.md" <<MD
<!-- openapi:begin (written by Benchmarks/openapi.sh; edits here are replaced on the next run) -->
## Large public OpenAPI specs: Bindery and swift-openapi-generator side by side

Produced by \`BINDERY_OPENAPI_SPEC="…/${names# }" make bench-openapi\` (each name a path) on $when, $(nproc) cores,
$(swift --version 2>&1 | head -1). The specs are not in the repository. Each module is built in debug from clean,
after its runtime (BinderyRuntime; OpenAPIRuntime 1.13.4), which is not counted. Each cell is
swift-openapi-generator 1.14.3's figure, then Bindery's; the ratio is Bindery ÷ it, and the target is ≤ 0.50.

| spec | generation, whole command (median of 3) | generated Swift, lines | debug build of the module, wall | debug build, peak memory |
|---|---|---|---|---|
${rows%$'\n'}

${notes%$'\n'}

The warnings are kept on purpose: CORPUS.md and Docs/OpenAPIExtensions.md say which and why.
<!-- openapi:end -->
MD
cat "$work/section.md"
Benchmarks/write-section.sh openapi "$work/section.md"
say "wrote the openapi section of BENCHMARKS.md"
