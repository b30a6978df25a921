#!/usr/bin/env bash
# Benchmarks/write-section.sh NAME SECTION_FILE OUTPUT: puts a benchmark's section (which starts with
# `<!-- NAME:begin` and ends with `<!-- NAME:end -->`) into OUTPUT, replacing the old one in place or appending it.
set -euo pipefail
name=$1 section=$2 output=$3
[ -f "$output" ] || : > "$output"
if grep -q "^<!-- $name:begin" "$output"; then
  awk -v file="$section" -v begin="^<!-- $name:begin" -v end="^<!-- $name:end" '
    $0 ~ begin { while ((getline line < file) > 0) print line; skipping = 1; next }
    $0 ~ end { skipping = 0; next }
    !skipping { print }' "$output" > "$output.tmp"
else
  { cat "$output"; [ -s "$output" ] && echo; cat "$section"; } > "$output.tmp"
fi
mv "$output.tmp" "$output"
