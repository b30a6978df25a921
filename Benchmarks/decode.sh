#!/usr/bin/env bash
# `make bench-decode` (or `Benchmarks/run.sh decode`; `make bench` runs it too): decoding, reading and encoding pages
# of models. A release build of decode-bench (Benchmarks/Decode/main.swift) generates a 1,000-item driveItem page, a
# page of Inbox messages with HTML bodies and a large delta page from fixed seeds, and times Bindery's own path
# beside Foundation's JSONDecoder/JSONEncoder with handwritten Codable structs of the same shape, the two alternating
# in one process; the delta page's peak memory is measured in a process of its own. Writes its section of
# BENCHMARKS.md between the decode markers. About 2 minutes the first time (the release build), under a minute after.
#
#   Benchmarks/decode.sh [--no-write] [--reps N] [--delta MIB]
set -euo pipefail
cd "$(dirname "$0")/.."
command_line="Benchmarks/decode.sh${*:+ $*}"
write=1 reps=15 delta_mib=100
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0 ;;
    --reps) reps=$2; shift ;;
    --delta) delta_mib=$2; shift ;;
    *) echo "decode: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
work=.build-bench/decode
mkdir -p "$work"
log="$work/log.txt"; : > "$log"
say() { echo "decode: $*" | tee -a "$log" >&2; }
die() { echo "decode: error: $*" | tee -a "$log" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

say "building decode-bench (release)"
swift build -c release --product decode-bench >>"$log" 2>&1 || die "the build failed (see $log)"
bench=$(swift build -c release --show-bin-path)/decode-bench

say "pages side by side with Foundation ($reps repetitions after 3 warm-ups)"
compare=$("$bench" compare "$reps" 2>>"$log") || die "the comparison failed (see $log)"
echo "$compare" >>"$log"
say "a delta page of $delta_mib MiB"
delta=$("$bench" delta "$delta_mib" 2>>"$log") || die "the delta run failed (see $log)"
echo "$delta" >>"$log"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

value() { sed -nE "s/.*(^| )$1=([^ ]+).*/\2/p" <<<"$compare $delta" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
at_least() { awk -v x="$1" -v t="$2" 'BEGIN {print (x >= t ? "✓" : "✗")}'; }
at_most() { awk -v x="$1" -v t="$2" 'BEGIN {print (x <= t ? "✓" : "✗")}'; }
ms() { awk -v x="$(value "$1")" 'BEGIN {printf (x < 1 ? "%.3f" : "%.1f"), x}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.2f", b / 1000000}'; }

page_speedup=$(ratio "$(value page_foundation_ms)" "$(value page_bindery_ms)")
record_ratio=$(ratio "$(value record_bindery_ms)" "$(value record_foundation_ms)")
record_own_ratio=$(ratio "$(value record_own_ms)" "$(value record_own_foundation_ms)")
read_ratio=$(ratio "$(value read_bindery_ms)" "$(value read_struct_ms)")
page_read_speedup=$(ratio "$(value page_read_foundation_ms)" "$(value page_read_bindery_ms)")
kept_bytes=$(value read_kept_bytes_per_item | cut -d. -f1)
encode_speedup=$(ratio "$(value encode_foundation_ms)" "$(value encode_bindery_ms)")
record_encode_speedup=$(ratio "$(value record_encode_foundation_ms)" "$(value record_encode_own_ms)")
messages_speedup=$(ratio "$(value messages_foundation_ms)" "$(value messages_bindery_ms)")
delta_bytes=$(value delta_bytes)
growth=$(($(value peak) - $(value rss_before)))
delta_ratio=$(ratio "$growth" "$delta_bytes")
mib() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1048576}'; }
reset_note="VmHWM, reset just before the decode through /proc/self/clear_refs"
[ "$(value peak_reset)" = clear_refs ] || reset_note="VmHWM could not be reset, so the peak includes generating the page"

section="$work/section.md"
cat > "$section" <<MD
<!-- decode:begin (written by Benchmarks/decode.sh; edits here are replaced on the next run) -->
## Decoding, reading and encoding models (\`make bench-decode\`)

Produced by \`$command_line\` on $(date -u +%Y-%m-%d), $(nproc) cores, load average $load_before before the run and
$load_after after (the machine is shared), $(swift --version 2>/dev/null | head -1 | sed 's/ Target.*//'), release
build. Payloads are generated from fixed seeds (\`Benchmarks/Decode/main.swift\`): a children page of $(value page_items)
driveItems, $(mb "$(value page_bytes)") MB (identity sets, parent references, file, folder, image and photo facets,
dates with and without milliseconds, quoted eTags); 100 Inbox messages with HTML bodies, $(mb "$(value messages_bytes)")
MB. Each row times both sides alternately in one process: median of $reps repetitions after 3 warm-ups. Bindery's side
is the client's own path, \`request().get()\` over a transport that answers with the bytes at once (no network, no
middleware). Foundation's side is \`JSONDecoder\`/\`JSONEncoder\` with handwritten \`Codable\` structs (optionals, nested
structs, dates parsed by \`Date.ISO8601FormatStyle\` with or without fractional seconds, as the text needs). Before
timing, both sides' ids, sizes, names, eTags, dates, hashes and the 8 properties read are checked equal, and Bindery's
encoded items byte for byte equal to the page's.

| what | Bindery | Foundation, handwritten structs | ratio | target | earlier, by hand |
|---|---|---|---|---|---|
| decode the page to models | $(ms page_bindery_ms) ms | $(ms page_foundation_ms) ms | $page_speedup× faster | ≥ 2× faster $(at_least "$page_speedup" 2) | 1.25× faster |
| the same items through \`JSONDecoder\`, Bindery models inside a user's \`Codable\` cache record | $(ms record_bindery_ms) ms | $(ms record_foundation_ms) ms | $record_ratio× the handwritten time | ≤ 1.1× $(at_most "$record_ratio" 1.1) | 7× slower |
| the same record through \`BinderyJSONDecoder\` (Bindery's drop-in for \`JSONDecoder\`) | $(ms record_own_ms) ms | $(ms record_own_foundation_ms) ms | $record_own_ratio× the handwritten time | ≤ 1.1× $(at_most "$record_own_ratio" 1.1) | |
| decode the page, then read what a list shows of every item once: 8 properties (5 strings, \`size\`, \`lastModifiedDateTime\`, \`parentReference.driveId\`) | $(ms page_read_bindery_ms) ms | $(ms page_read_foundation_ms) ms | $page_read_speedup× faster | ≥ 2× faster $(at_least "$page_read_speedup" 2) | |
| read the same 8 again, from decoded models (each read converts its member) | $(ms read_bindery_ms) ms | $(ms read_struct_ms) ms (stored properties) | $read_ratio× the struct time | report | |
| heap that reading the 8 keeps, per item (\`mallinfo2\`'s bytes in use after the read less before, ÷ the items) | $kept_bytes bytes | 0 | | none $(at_most "$kept_bytes" 0) | |
| encode the page's items (Bindery's writer; \`JSONEncoder\`) | $(ms encode_bindery_ms) ms | $(ms encode_foundation_ms) ms | $encode_speedup× faster | ≥ 3× faster $(at_least "$encode_speedup" 3) | 3.1× faster |
| write the cache record (\`BinderyJSONEncoder\`; \`JSONEncoder\` of the handwritten record) | $(ms record_encode_own_ms) ms | $(ms record_encode_foundation_ms) ms | $record_encode_speedup× faster | report | |
| decode 100 messages with HTML bodies (Inbox's \`Message\`) | $(ms messages_bindery_ms) ms | $(ms messages_foundation_ms) ms | $messages_speedup× faster | report | |
| decode a $(mib "$delta_bytes") MiB delta page of $(value delta_items) driveItems ($(value delta_ms) ms): peak memory growth | $(mib "$growth") MiB | | $delta_ratio× its size | ≤ 3× $(at_most "$delta_ratio" 3) | |

The messages row uses Inbox's \`Message\` (HTML \`body\`, participants, files), not Graph's: a release build of the
Graph module costs minutes and gigabytes, too much for this benchmark. The delta row's growth is the decoding
process's peak resident size above its size with the response body already in memory; the body itself is one more
times its size. Peak: $reset_note.

What the figures say (\`perf record\` of \`decode-bench profile page|record|read|encode\`, 2026-11-25 to 28):

- Page: validation walks a payload's members and finds each declared field by hash, builds a JSON path only while
  a failure unwinds, and reaches nested types' schemas by reference. The parser builds containers on shared stacks
  copied out at exactly their size, keeps long member names once per document, and decodes ASCII text without the
  generic validating initializer. What is left is mostly the tree itself: a \`String\` per key and value, and
  freeing them.
- Cache record through \`JSONDecoder\`: Foundation gives a \`Decodable\` no access to the bytes under it, so a
  model inside a user's type is rebuilt value by value through its containers. The bridge asks for each declared
  field's kind first, through that kind's own \`decodeIfPresent\` overload (the generic one makes Foundation test
  the type against its special cases on every member: about a quarter of the time that call took), so a
  well-formed payload costs no failed attempt; only undeclared members are probed kind by kind, each miss a thrown
  \`DecodingError\` with its coding path. What is left is Foundation's own container machinery: \`allKeys\`
  (its keys cast through \`[any CodingKey]\` and back, about a fifth of the time), a keyed container and its
  dictionary per object, and validation. ≤ 1.1× is out of reach on this path; \`BinderyJSONDecoder\` is the
  fast one: it parses with the runtime's parser and each model takes its part of the document as it is.
- Reads: a model holds nothing but its JSON. A read finds its field's name and strictness by the key path's
  offset in the type's table (a constant where the key path is a literal), finds the member by a scan that compares
  lengths first, and converts it where it lies; nothing is kept, so a model costs no memory beyond its members and
  no read can go stale. What a list screen pays is the first row of this pair: decoding dominates, and reading
  the 8 properties of every item adds about 4% to it. Repeated reads convert again (a date is parsed on every
  read): the "again" row, about 70 ns a read, is a report, not a target. What is left per read (\`perf\` of
  \`profile read\`): about 40% retains and releases (the schema, its field list, the field's name, a nested
  model's members), a fifth the member scan, and the date parse.
- Encoding: mostly \`JSONValue.writeString\` appending byte by byte.
<!-- decode:end -->
MD
cat "$section"
if [ $write = 1 ]; then
  Benchmarks/write-section.sh decode "$section" BENCHMARKS.md
  say "wrote the decode section of BENCHMARKS.md"
fi
