#!/usr/bin/env bash
# `make bench-transfers` (or `Benchmarks/run.sh transfers`; `make bench` runs it too): OneDrive large transfers. A
# release build of transfer-bench uploads a file through an upload session and downloads it back by ranges, beside
# libcurl driven from C (Benchmarks/raw_transfer.c) sending the same ranges to the same mock, alternating, in one
# run. The mock (OneDrive, storage host on a second port) runs in a process of its own, so each client's peak
# memory is its own. Then the mock's own latency for small sequential GETs, kept-alive and not. Writes its section
# of BENCHMARKS.md between the transfers markers. About 4 minutes the first time (the release build), under a
# minute after that.
#
#   Benchmarks/transfers.sh [--no-write] [--size MIB] [--chunk MIB] [--reps N] [--latency COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
command_line="Benchmarks/transfers.sh${*:+ $*}"
write=1 size_mib=256 chunk_mib=10 reps=3 latency_count=2000
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0 ;;
    --size) size_mib=$2; shift ;;
    --chunk) chunk_mib=$2; shift ;;
    --reps) reps=$2; shift ;;
    --latency) latency_count=$2; shift ;;
    *) echo "transfers: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
work=.build-bench/transfers
mkdir -p "$work"
log="$work/log.txt"; : > "$log"
say() { echo "transfers: $*" | tee -a "$log" >&2; }
die() { echo "transfers: error: $*" | tee -a "$log" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

say "building transfer-bench (release) and the C reference"
swift build -c release --product transfer-bench >>"$log" 2>&1 || die "the build failed (see $log)"
bench=$(swift build -c release --show-bin-path)/transfer-bench
gcc -O2 -o "$work/raw_transfer" Benchmarks/raw_transfer.c $(pkg-config --cflags --libs libcurl) >>"$log" 2>&1 \
  || die "the C reference did not compile (see $log)"

chunk=$((chunk_mib * 1048576))
file="$work/upload.bin"
say "writing a ${size_mib} MiB file of random bytes"
head -c $((size_mib * 1048576)) /dev/urandom > "$file"

"$bench" serve > "$work/serve.txt" 2>>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$file" "$work"/down-*.bin' EXIT
for _ in $(seq 100); do grep -q '^base=' "$work/serve.txt" 2>/dev/null && break; sleep 0.1; done
base=$(sed -nE 's/^base=([^ ]+) .*/\1/p' "$work/serve.txt")
token=$(sed -nE 's/.* token=(.*)/\1/p' "$work/serve.txt")
[ -n "$base" ] || die "the mock did not start (see $log)"

value() { sed -nE "s/.*(^| )$1=([^ ]+).*/\2/p" <<<"$2" | head -1; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# MiB/s of one run's output.
rate() { awk -v b="$(value bytes "$1")" -v s="$(value seconds "$1")" 'BEGIN {printf "%.1f", b / 1048576 / s}'; }

declare -A rates rss
for rep in $(seq "$reps"); do
  say "repetition $rep of $reps"
  for client in c bindery; do
    for direction in upload download; do
      name="bench-$client.bin"; copy="$work/down-$client.bin"; rm -f "$copy"
      if [ $client = c ]; then tool="$work/raw_transfer"; else tool=$bench; fi
      if [ $direction = upload ]; then
        out=$("$tool" upload "$base" "$token" "$file" "$name" "$chunk" 2>>"$log") || die "$client $direction failed (see $log)"
      else
        out=$("$tool" download "$base" "$token" "$name" "$copy" "$chunk" 2>>"$log") || die "$client $direction failed (see $log)"
        cmp -s "$file" "$copy" || die "$client's download differs from the file uploaded"
      fi
      echo "$client $direction: $out" >>"$log"
      [ "$(value bytes "$out")" = $((size_mib * 1048576)) ] || die "$client $direction moved $(value bytes "$out") bytes"
      rates[$client.$direction]+="$(rate "$out") "
      [ $client = bindery ] && rss[$direction]+="$(value peak_rss_mib "$out") "
    done
  done
done
pick() { tr ' ' '\n' <<<"${rates[$1]}" | grep . | median; }
peak() { tr ' ' '\n' <<<"${rss[$1]}" | grep . | sort -n | tail -1; }
# The client's footprint with nothing in flight: the same process moving a file of one byte less than a chunk.
small="$work/small.bin"; head -c $((chunk / 4)) /dev/urandom > "$small"
idle=$("$bench" upload "$base" "$token" "$small" small.bin "$chunk" 2>>"$log") || die "the small upload failed"
idle_rss=$(value peak_rss_mib "$idle"); rm -f "$small"

# The mock itself: small GETs one after another, as a test suite that uses it sends them.
say "the mock's latency: $latency_count GETs on one kept-alive connection, then on a new connection each"
lat=$("$work/raw_transfer" latency "$base" "$token" "$latency_count" 2>>"$log") || die "the latency run failed (see $log)"
echo "latency: $lat" >>"$log"
kept_ms=$(value kept_median_ms "$lat")
under() { awk -v x="$1" -v t="$2" 'BEGIN {print (x < t ? "✓" : "✗")}'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
mark() { awk -v x="$1" -v t="$2" 'BEGIN {print (x >= t ? "✓" : "✗")}'; }
up_ratio=$(ratio "$(pick bindery.upload)" "$(pick c.upload)")
down_ratio=$(ratio "$(pick bindery.download)" "$(pick c.download)")
chunks() { awk -v p="$1" -v i="$idle_rss" -v c="$chunk_mib" 'BEGIN {printf "%.2f", (p - i) / c}'; }
within() { awk -v x="$1" 'BEGIN {print (x <= 2 ? "✓" : "✗")}'; }
up_chunks=$(chunks "$(peak upload)"); down_chunks=$(chunks "$(peak download)")

section="$work/section.md"
cat > "$section" <<MD
<!-- transfers:begin (written by Benchmarks/transfers.sh; edits here are replaced on the next run) -->
## OneDrive large transfers against the mock (\`make bench-transfers\`)

Produced by \`$command_line\` on $(date -u +%Y-%m-%d), $(nproc) cores, load average $load_before before the run,
$(swift --version 2>/dev/null | head -1 | sed 's/ Target.*//'), release build. A ${size_mib} MiB file of random bytes
in ${chunk_mib} MiB ranges, to and from the OneDrive mock (its own process; API on 127.0.0.1, storage host on a second
port), median of $reps repetitions, the two clients alternating. Every download is compared with the file.

| | Bindery (\`upload(file:to:)\`, \`download(to:)\`) | libcurl from C, same ranges | Bindery ÷ C | target |
|---|---|---|---|---|
| upload, MiB/s | $(pick bindery.upload) | $(pick c.upload) | $up_ratio | |
| download, MiB/s | $(pick bindery.download) | $(pick c.download) | $down_ratio | |
| upload, peak memory above idle | $(awk -v p="$(peak upload)" -v i="$idle_rss" 'BEGIN {printf "%.0f", p - i}') MiB = $up_chunks chunks | | | ≤ 2 chunks $(within "$up_chunks") |
| download, peak memory above idle | $(awk -v p="$(peak download)" -v i="$idle_rss" 'BEGIN {printf "%.0f", p - i}') MiB = $down_chunks chunks | | | ≤ 2 chunks $(within "$down_chunks") |

Peak memory is the client process's largest resident size (getrusage), less that of the same process uploading a
quarter of a chunk ($(printf '%.0f' "$idle_rss") MiB). The C reference checks statuses only; Bindery also creates and
asks the session as a user's code would, hashes the whole file (\`quickXorHash\`) to check the result, and writes a
download to \`.partial\` before renaming it. The mock, which both share, stores the bytes in memory.

The mock as a dependency of a test suite: $latency_count GETs of \`drive/root\` one after another from libcurl in C,
first on one kept-alive connection, then on a new connection each (after a warm-up).

| the mock answering small GETs | median | 99th percentile | target |
|---|---|---|---|
| one kept-alive connection | $kept_ms ms | $(value kept_p99_ms "$lat") ms | median < 1 ms $(under "$kept_ms" 1) |
| a new connection per request | $(value fresh_median_ms "$lat") ms | $(value fresh_p99_ms "$lat") ms | |
<!-- transfers:end -->
MD
cat "$section"
if [ $write = 1 ]; then
  Benchmarks/write-section.sh transfers "$section" BENCHMARKS.md
  say "wrote the transfers section of BENCHMARKS.md"
fi
