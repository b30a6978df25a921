#!/usr/bin/env bash
# `make bench-transport` (or `Benchmarks/run.sh transport`; `make bench` runs it last): Bindery's CurlTransport beside
# Foundation's URLSession, async-http-client and libcurl driven from C, in one run against one local nginx on
# 127.0.0.1. Prints a Markdown table and writes it into BENCHMARKS.md between the transport markers (replacing that
# section, or appending it), unless --no-write. Takes about 5 minutes the first time (building async-http-client and
# SwiftNIO in release), under a minute after that.
#
#   Benchmarks/transport.sh [--no-write] [--output FILE] [--requests N] [--large N] [--inflight N] [--reps N]
#
# Every client runs in a process of its own, in the same order every run: a warm-up, then --reps repetitions of
# N sequential keep-alive GETs of 1 KB, N GETs with 8 in flight, and --large sequential GETs of 1 MB; the table
# shows the median of the repetitions. A client that gets a status other than 200 or a body of the wrong length
# stops the run with an error.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command_line="Benchmarks/transport.sh${*:+ $*}"

write=1
output=BENCHMARKS.md
requests=5000
large=200
inflight=8
reps=3
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0 ;;
    --output) output=$2; shift ;;
    --requests) requests=$2; shift ;;
    --large) large=$2; shift ;;
    --inflight) inflight=$2; shift ;;
    --reps) reps=$2; shift ;;
    *) echo "transport: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

work="$root/.build-bench/transport"
mkdir -p "$work"
log="$work/log.txt"; : > "$log"
say() { echo "transport: $*" | tee -a "$log" >&2; }
die() { echo "transport: error: $*" | tee -a "$log" >&2; exit 1; }

# What is missing: nginx (the server) and libcurl's headers (CurlTransport and the C reference).
needed=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || needed+=(nginx)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || needed+=(libcurl4-openssl-dev)
if [ ${#needed[@]} -gt 0 ]; then
  say "installing ${needed[*]} with apt-get"
  command -v apt-get >/dev/null 2>&1 || die "apt-get is not available; install ${needed[*]} yourself"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "installing packages needs root; install ${needed[*]} yourself"
    sudo=sudo
  fi
  $sudo apt-get update -qq >>"$log" 2>&1 || die "apt-get update failed (see $log)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${needed[@]}" >>"$log" 2>&1 \
    || die "could not install ${needed[*]} (see $log)"
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

say "building transport-bench (release; the first build compiles async-http-client and SwiftNIO)"
build_start=$(date +%s.%N)
# SwiftPM kept this package's build plan from before a file was added to the runtime it depends on by path, and the
# build failed on the missing file (2026-11-26). Without the plan it plans again: seconds, not a rebuild.
rm -f "$work/swift/release.yaml" "$work"/swift/*/release/description.json
swift build -c release --package-path Benchmarks/Transport --scratch-path "$work/swift" --product transport-bench \
  >>"$log" 2>&1 || { grep -m 20 'error:' "$log" >&2 || true; die "the Swift build failed (see $log)"; }
build_seconds=$(awk -v s="$build_start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", e - s}')
bench="$(swift build -c release --package-path Benchmarks/Transport --scratch-path "$work/swift" --show-bin-path)/transport-bench"
say "built in $build_seconds s"
cc -O2 -o "$work/raw_curl" Benchmarks/Transport/raw_curl.c -lcurl >>"$log" 2>&1 \
  || die "building raw_curl.c failed (see $log)"

# nginx: foreground master (our child, stopped by pid on exit), prefix and files in a temporary folder.
server=$(mktemp -d "${TMPDIR:-/tmp}/bindery-nginx.XXXXXX")
nginx_pid=""
cleanup() {
  if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
    kill -QUIT "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  rm -rf "$server"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$server/www" "$server/temp"
{ yes 'Bindery transport benchmark, 1 KB body.' || true; } | head -c 1024 > "$server/www/1k.bin"
{ yes 'Bindery transport benchmark, 1 MB body.' || true; } | head -c 1048576 > "$server/www/1m.bin"
port=${BENCH_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
if [ "$(id -u)" -eq 0 ]; then user="user $(id -un) $(id -gn);"; else user="# nginx runs as $(id -un)"; fi
sed -e "s|@PORT@|$port|" -e "s|@ROOT@|$server/www|" -e "s|@USER@|$user|" Benchmarks/Transport/nginx.conf \
  > "$server/nginx.conf"
"$nginx" -p "$server/" -c "$server/nginx.conf" -e "$server/error.log" >>"$log" 2>&1 &
nginx_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 50); do
  curl -fsS -o /dev/null "$base/1k.bin" 2>/dev/null && break
  kill -0 "$nginx_pid" 2>/dev/null || die "nginx did not start: $(cat "$server/error.log" 2>/dev/null)"
  sleep 0.1
done
for file in 1k.bin:1024 1m.bin:1048576; do
  got=$(curl -fsS -o /dev/null -w '%{http_code} %{size_download}' "$base/${file%%:*}") \
    || die "nginx does not serve $base/${file%%:*}"
  [ "$got" = "200 ${file##*:}" ] || die "nginx answered $got for ${file%%:*}, expected 200 ${file##*:}"
done
say "nginx $("$nginx" -v 2>&1 | sed 's|.*/||') on $base (pid $nginx_pid), 1 worker"
load=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average before the run: $load"

# One client per process, always in this order. Each prints one RESULT line on stdout; progress goes to the log.
options=(--requests "$requests" --inflight "$inflight" --large "$large" --reps "$reps")
declare -A seq conc big name
for client in raw bindery bindery-loop urlsession ahc; do
  say "running $client"
  if [ "$client" = raw ]; then
    line=$("$work/raw_curl" "$base" "${options[@]}" 2> >(tee -a "$log" >&2)) || die "raw libcurl failed (see above)"
  else
    line=$("$bench" "$client" "$base" "${options[@]}" 2> >(tee -a "$log" >&2)) || die "$client failed (see above)"
  fi
  line=$(grep '^RESULT ' <<<"$line") || die "$client printed no RESULT line"
  echo "$line" >>"$log"
  field() { sed -E "s/.* $1=([^ ]+).*/\1/" <<<"$line"; }
  seq[$client]=$(field seq); conc[$client]=$(field conc); big[$client]=$(field large); name[$client]=$(field name)
done
kill -0 "$nginx_pid" 2>/dev/null || die "nginx stopped during the run: $(cat "$server/error.log")"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
# A ratio cell: the value, and ✓ or ✗ against the target when there is one.
cell() {  # ours theirs [target]
  local r; r=$(ratio "$1" "$2")
  if [ -n "${3:-}" ]; then
    if awk -v r="$r" -v t="$3" 'BEGIN {exit !(r >= t)}'; then echo "$r ✓ (≥ $3)"; else echo "$r ✗ (≥ $3)"; fi
  else echo "$r"; fi
}
num() {  # 12345.6 → 12,346
  awk -v x="$1" 'BEGIN { s = sprintf("%.0f", x); n = length(s)
    for (i = 1; i <= n; i++) { o = o substr(s, i, 1); if (i < n && (n - i) % 3 == 0) o = o "," } print o }'
}
ours="Bindery \`CurlTransport\`"
note=""
when=$(date -u +%Y-%m-%d)
section=$(cat <<MD
<!-- transport:begin (written by Benchmarks/transport.sh; edits here are replaced on the next run) -->
## HTTP transports against a local nginx

Produced by \`make bench-transport\` (\`$command_line\`) on $when, $(nproc) cores, load average $load before the run,
$(swift --version 2>&1 | sed -n 1p), $(curl-config --version 2>/dev/null || echo libcurl), nginx with 1 worker on 127.0.0.1 and
keep-alive. Each client runs in its own process after a warm-up; every figure is the median of $reps repetitions.
Client and server share the machine's cores, so compare ratios, not absolute rates.
$note
| client | sequential, 1 KB (req/s) | $inflight in flight, 1 KB (req/s) | 1 MB bodies (MB/s) |
|---|---|---|---|
| $ours | $(num "${seq[bindery]}") | $(num "${conc[bindery]}") | $(num "${big[bindery]}") |
| $ours, the tasks on its \`executor\` | $(num "${seq[bindery-loop]}") | $(num "${conc[bindery-loop]}") | $(num "${big[bindery-loop]}") |
| Foundation \`URLSession\` | $(num "${seq[urlsession]}") | $(num "${conc[urlsession]}") | $(num "${big[urlsession]}") |
| async-http-client 1.37.0 | $(num "${seq[ahc]}") | $(num "${conc[ahc]}") | $(num "${big[ahc]}") |
| libcurl from C (the reference: one easy handle; a multi handle for $inflight in flight) | $(num "${seq[raw]}") | $(num "${conc[raw]}") | $(num "${big[raw]}") |

| ratio | sequential | $inflight in flight | 1 MB |
|---|---|---|---|
| CurlTransport ÷ URLSession | $(cell "${seq[bindery]}" "${seq[urlsession]}" 3) | $(cell "${conc[bindery]}" "${conc[urlsession]}") | $(cell "${big[bindery]}" "${big[urlsession]}") |
| CurlTransport ÷ async-http-client | $(cell "${seq[bindery]}" "${seq[ahc]}" 1.25) | $(cell "${conc[bindery]}" "${conc[ahc]}" 1.5) | $(cell "${big[bindery]}" "${big[ahc]}") |
| CurlTransport ÷ libcurl from C | $(cell "${seq[bindery]}" "${seq[raw]}" 0.7) | $(cell "${conc[bindery]}" "${conc[raw]}" 0.7) | $(cell "${big[bindery]}" "${big[raw]}" 0.8) |
| on its executor ÷ async-http-client | $(cell "${seq[bindery-loop]}" "${seq[ahc]}" 1.25) | $(cell "${conc[bindery-loop]}" "${conc[ahc]}" 1.5) | $(cell "${big[bindery-loop]}" "${big[ahc]}") |
| on its executor ÷ libcurl from C | $(cell "${seq[bindery-loop]}" "${seq[raw]}" 0.7) | $(cell "${conc[bindery-loop]}" "${conc[raw]}" 0.7) | $(cell "${big[bindery-loop]}" "${big[raw]}" 0.8) |

$requests GETs of a 1 KB file one after another on one keep-alive connection; $requests GETs with $inflight under way
at all times (Swift: a task group); $large GETs of a 1 MB file one after another (MB = 1,048,576 bytes). Requests
are built once; each response's status and body length are checked. "On its \`executor\`": the same client with
every task of the run preferring the transport's loop thread (\`withTaskExecutorPreference(transport.executor)\`),
so no request changes threads. Run it with \`make bench-transport\`.
<!-- transport:end -->
MD
)

echo
echo "$section"
echo
if [ "$write" = 1 ]; then
  printf '%s\n' "$section" > "$work/section.md"
  Benchmarks/write-section.sh transport "$work/section.md" "$output"
  say "wrote the transport section of $output"
else
  say "--no-write: $output left as it was"
fi
say "command: $command_line (swift build of the bench: $build_seconds s)"
