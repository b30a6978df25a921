#!/usr/bin/env bash
# Benchmarks/write-section.sh NAME SECTION_FILE [OUTPUT]: puts a section of BENCHMARKS.md in place. The section
# starts with `<!-- NAME:begin` and ends with `<!-- NAME:end -->`; an older one is replaced where it stands,
# otherwise the section is appended.
set -euo pipefail
name=$1 section=$2 output=${3:-BENCHMARKS.md}
[ -f "$output" ] || : > "$output"
tmp=$(mktemp)
if grep -q "^<!-- $name:begin" "$output"; then
  awk -v file="$section" -v begin="^<!-- $name:begin" -v end="^<!-- $name:end" '
    $0 ~ begin { while ((getline line < file) > 0) print line; skipping = 1; next }
    $0 ~ end { skipping = 0; next }
    !skipping { print }' "$output" > "$tmp"
else
  { cat "$output"; [ -s "$output" ] && echo; cat "$section"; } > "$tmp"
fi
mv "$tmp" "$output"
