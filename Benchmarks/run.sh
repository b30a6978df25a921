#!/usr/bin/env bash
# `make bench`: generation speed and the build cost of the full Microsoft Graph module, side by side in one
# run with a naive baseline, written to BENCHMARKS.md, then the HTTP transports (Benchmarks/transport.sh).
# Takes 25-45 minutes on 2 cores. `Benchmarks/run.sh transport [options]` runs only the transports,
# `Benchmarks/run.sh inbox` only the Inbox offline store (Benchmarks/inbox.sh), `Benchmarks/run.sh transfers` only
# the OneDrive uploads and downloads (Benchmarks/transfers.sh), `Benchmarks/run.sh decode` only decoding, reading and
# encoding models beside Foundation (Benchmarks/decode.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ "${1:-}" = transport ]; then shift; exec Benchmarks/transport.sh "$@"; fi
if [ "${1:-}" = inbox ]; then shift; exec Benchmarks/inbox.sh "$@"; fi
if [ "${1:-}" = transfers ]; then shift; exec Benchmarks/transfers.sh "$@"; fi
if [ "${1:-}" = decode ]; then shift; exec Benchmarks/decode.sh "$@"; fi
corpus=../shared/corpus/graph-v1.0.csdl.xml
work="$root/.build-bench"
if [ ! -f "$corpus" ]; then
  echo "bench: $corpus is missing; the Graph benchmarks need ../shared beside the package." >&2
  exit 1
fi
mkdir -p "$work"
log="$work/log.txt"; : > "$log"
say() { echo "bench: $*" | tee -a "$log"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# "wall user sys maxrssKB" of a command; maxrss is the largest single process (the biggest compiler job).
measure() { /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >>"$log" 2>&1; cat "$work/time.txt"; }

say "building bindery-gen (release)"
swift build -c release --product bindery-gen >>"$log" 2>&1
gen=$(swift build -c release --show-bin-path)/bindery-gen

say "libxml2 reference: visiting every node of the Graph metadata"
gcc -O2 -o "$work/xml_visit" Benchmarks/xml_visit.c $(pkg-config --cflags --libs libxml-2.0)
read -r visit_ms nodes < <("$work/xml_visit" "$corpus" 21)

say "generating the full Graph (5 runs)"
out="$work/graph/Sources/Graph/Generated"
rm -rf "$work/graph/Sources"
gen_times=(); read_times=(); emit_times=()
for run in 1 2 3 4 5; do
  # Each run regenerates into an empty folder, so every run writes every file.
  rm -rf "$out"
  # Flushed first, so a run does not wait on the writeback of the files the run before it wrote.
  sync
  line=$(measure "$gen" "$corpus" --output "$out" --config Benchmarks/graph.bindery.json --timings)
  read -r wall _ _ rss <<<"$line"
  timings=$(grep '^timings:' "$log" | tail -1)
  read_ms=$(sed -E 's/.*read ([0-9.]+) ms.*/\1/' <<<"$timings")
  emit_ms=$(sed -E 's/.*emit ([0-9.]+) ms.*/\1/' <<<"$timings")
  gen_times+=("$wall"); read_times+=("$read_ms"); emit_times+=("$emit_ms"); gen_rss=$rss
done
gen_wall=$(printf '%s\n' "${gen_times[@]}" | median)
read_med=$(printf '%s\n' "${read_times[@]}" | median)
emit_med=$(printf '%s\n' "${emit_times[@]}" | median)
inmem=$(awk -v r="$read_med" -v e="$emit_med" 'BEGIN {printf "%.1f", r + e}')
files=$(find "$out" -name '*.swift' | wc -l)
lines=$(cat $(find "$out" -name '*.swift') | wc -l)
bytes=$(du -sb "$out" | cut -f1)

say "naive baseline"
rm -rf "$work/naive"; mkdir -p "$work/naive/Sources/Graph"
python3 Benchmarks/naive_baseline.py "$corpus" "$work/naive/Sources/Graph"
naive_files=$(find "$work/naive/Sources/Graph" -name '*.swift' | wc -l)
naive_lines=$(cat "$work/naive/Sources/Graph"/*.swift | wc -l)
cat > "$work/naive/Package.swift" <<'PKG'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(name: "NaiveGraph", targets: [.target(name: "Graph")], swiftLanguageModes: [.v6])
PKG
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
cat > "$work/graph/Package.swift" <<PKG
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "BinderyGraph",
    dependencies: [.package(path: "../..")],
    // Not named Graph: the package it depends on has a Graph target of its own, and target names must be unique.
    targets: [
        .target(
            name: "GraphBench", dependencies: [.product(name: "BinderyRuntime", package: "$identity")],
            path: "Sources/Graph")
    ],
    swiftLanguageModes: [.v6]
)
PKG

# Builds one package's Graph target from clean (dependencies built first and not counted).
build() {  # package config
  local package=$1 config=$2
  rm -rf "$work/$package/.build"
  if [ "$package" = graph ]; then
    (cd "$work/$package" && swift build -c "$config" --target BinderyRuntime >>"$log" 2>&1)
  fi
  local target=Graph
  [ "$package" = graph ] && target=GraphBench
  (cd "$work/$package" && measure swift build -c "$config" --target "$target" -j 2)
}

say "debug builds (naive, then Bindery)"
read -r naive_debug_wall naive_debug_user naive_debug_sys naive_debug_rss <<<"$(build naive debug)"
read -r our_debug_wall our_debug_user our_debug_sys our_debug_rss <<<"$(build graph debug)"
say "release builds (naive, then Bindery)"
read -r naive_release_wall naive_release_user naive_release_sys naive_release_rss <<<"$(build naive release)"
read -r our_release_wall our_release_user our_release_sys our_release_rss <<<"$(build graph release)"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
gib() { awk -v k="$1" 'BEGIN {printf "%.2f", k / 1048576}'; }
when=$(date -u +%Y-%m-%d)
# Only this section is rewritten: the prose on other sections, and sections from other runs, stay as they are.
section="$work/graph-section.md"
cat > "$section" <<MD
<!-- graph:begin (written by Benchmarks/run.sh; edits here are replaced on the next run) -->
Produced by \`make bench\` (\`Benchmarks/run.sh\`) on $when, $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB,
$(swift --version 2>&1 | head -1). Every figure in this section and in the sections \`make bench\` writes after it
(transports, Inbox, transfers, decoding) comes from that one run; compare ratios, not absolute times.

## Generating the full Microsoft Graph v1.0 (\`../shared/corpus/graph-v1.0.csdl.xml\`, 3,823 types)

| what | median of 5 runs |
|---|---|
| libxml2's streaming reader visiting all $nodes nodes (C, the reference) | $visit_ms ms |
| bindery-gen: read CSDL into the spec model | $read_med ms |
| bindery-gen: translate and render all Swift, in memory | $emit_med ms |
| **generation in memory (read + emit)** | **$inmem ms = $(ratio "$inmem" "$visit_ms")× the reference** (target ≤ 10×) |
| whole command, writing $files files to disk (wall) | $gen_wall s, peak $(gib "$gen_rss") GiB |

Output: $files files, $lines lines, $(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MiB (models and request builders).
Naive baseline output: $naive_files files, $naive_lines lines (models only).

## Building the Graph module (the module alone; its dependencies are built first and not counted)

Peak memory is the largest single process (the biggest compiler job), as reported by \`/usr/bin/time\`.

| build | naive baseline | Bindery | Bindery ÷ naive | target |
|---|---|---|---|---|
| debug, wall | $naive_debug_wall s | $our_debug_wall s | $(ratio "$our_debug_wall" "$naive_debug_wall") | ≤ 0.33 (issue 15) |
| debug, CPU (user + sys) | $(awk -v u="$naive_debug_user" -v s="$naive_debug_sys" 'BEGIN {print u + s}') s | $(awk -v u="$our_debug_user" -v s="$our_debug_sys" 'BEGIN {print u + s}') s | $(ratio "$(awk -v u="$our_debug_user" -v s="$our_debug_sys" 'BEGIN {print u + s}')" "$(awk -v u="$naive_debug_user" -v s="$naive_debug_sys" 'BEGIN {print u + s}')") | |
| debug, peak memory | $(gib "$naive_debug_rss") GiB | $(gib "$our_debug_rss") GiB | $(ratio "$our_debug_rss" "$naive_debug_rss") | ≤ 0.50 (issue 15) |
| release, wall | $naive_release_wall s | $our_release_wall s | $(ratio "$our_release_wall" "$naive_release_wall") | ≤ 0.33 |
| release, peak memory | $(gib "$naive_release_rss") GiB | $(gib "$our_release_rss") GiB | $(ratio "$our_release_rss" "$naive_release_rss") | ≤ 0.33 |

The naive baseline (\`Benchmarks/naive_baseline.py\`) is what most generators emit: one struct per type, every property
optional, synthesized \`Codable\`, inherited properties flattened, no request builders. Bindery's module also contains a
request builder per entity type, every action and function, and the client.
<!-- graph:end -->
MD
[ -f BENCHMARKS.md ] || printf '# Benchmarks\n\n' > BENCHMARKS.md
Benchmarks/write-section.sh graph "$section" BENCHMARKS.md
say "HTTP transports (Benchmarks/transport.sh; its log is .build-bench/transport/log.txt)"
Benchmarks/transport.sh >>"$log" 2>&1 || { say "the transport benchmark failed; see $log"; exit 1; }
say "Inbox offline store (Benchmarks/inbox.sh)"
Benchmarks/inbox.sh >>"$log" 2>&1 || { say "the inbox benchmark failed; see $log"; exit 1; }
say "OneDrive large transfers (Benchmarks/transfers.sh)"
Benchmarks/transfers.sh >>"$log" 2>&1 || { say "the transfers benchmark failed; see .build-bench/transfers/log.txt"; exit 1; }
say "decoding, reading and encoding models (Benchmarks/decode.sh)"
Benchmarks/decode.sh >>"$log" 2>&1 || { say "the decode benchmark failed; see .build-bench/decode/log.txt"; exit 1; }
say "a public OpenAPI spec (Benchmarks/openapi.sh; skipped without BINDERY_OPENAPI_SPEC)"
Benchmarks/openapi.sh >>"$log" 2>&1 || { say "the OpenAPI benchmark failed; see .build-bench/openapi/log.txt"; exit 1; }
say "done: BENCHMARKS.md"
cat BENCHMARKS.md
