#!/usr/bin/env bash
# `Benchmarks/run.sh inbox`: the Inbox offline store. A release build of inbox-offline-bench seeds the Inbox mock
# with 10,000 threads and 10,000 messages, syncs them into a SQLite file (items/s, peak memory of the process, which
# holds the mock too), then times how soon a live view over all 10,000 threads, then one over all 10,000 messages,
# shows each of 30 delta rounds. Writes its section of BENCHMARKS.md between the inbox markers (replacing it, or
# appending it). About 3 minutes the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
output=BENCHMARKS.md
work=.build-bench/inbox
mkdir -p "$work"
echo "bench: building inbox-offline-bench (release)"
swift build -c release --product inbox-offline-bench >"$work/build.txt" 2>&1 || { cat "$work/build.txt"; exit 1; }
bench=$(swift build -c release --show-bin-path)/inbox-offline-bench
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$bench" 10000 | tee "$work/result.txt"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
value() { sed -nE "s/.*(^| )$1=([^ ]+).*/\2/p" "$work/result.txt" | head -1; }
fixed() { awk -v x="$1" -v d="$2" 'BEGIN {printf "%.*f", d, x}'; }
section=$(cat <<MD
<!-- inbox:begin (written by Benchmarks/inbox.sh) -->
## Inbox offline store (\`Benchmarks/run.sh inbox\`)

Release build, $(date -u +%Y-%m-%d), $(nproc) cores, load average $load_before before the run and $load_after after
(the machine is shared). The mock runs in the same process over 127.0.0.1.

| measure | value |
|---|---|
| first sync: threads and messages fetched (pages of 1,000) and written | $(value threads) + $(value threads) in $(fixed "$(value seconds)" 2) s |
| first sync: objects per second | $(fixed "$(value per_second)" 0) |
| peak memory of the process (mock included) | $(fixed "$(value peak_rss_mib)" 0) MiB |
| SQLite file with its WAL | $(fixed "$(value file_mib)" 1) MiB |
| a delta round changing one thread (HTTP + apply + commit + the open view's update), median of 30 | $(fixed "$(value round_ms_median)" 1) ms |
| live view over all 10,000 threads: snapshot in the consuming task after the round's commit, median / max | $(fixed "$(value view_ms_median)" 2) / $(fixed "$(value view_ms_max)" 2) ms |
| live view over all 10,000 messages: the same, a round changing one message, median / max | $(fixed "$(value message_view_ms_median)" 2) / $(fixed "$(value message_view_ms_max)" 2) ms |

After each commit that touched its table, a view re-reads only the touched rows (on the writer, right after the
commit), removes them from its rows and inserts those that still match where the sort key puts them; untouched
rows keep their place and their decoded models. Its latency grows with the size of the change, not with the rows
it shows, bar a scan of rowids, moving array elements and one pass over integers for the moves. It re-runs its
whole query only when the touched rows cannot tell what changed (see \`ViewFeed\`).
<!-- inbox:end -->
MD
)
printf '%s\n' "$section" > "$work/section.md"
Benchmarks/write-section.sh inbox "$work/section.md" "$output"
echo "bench: wrote the inbox section of $output"
