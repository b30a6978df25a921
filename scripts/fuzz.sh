#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader and decoder with libFuzzer and AddressSanitizer (`make fuzz`).
#
#   scripts/fuzz.sh                  every target for 1,000,000 executions or 10 minutes, whichever comes first;
#                                    writes RELIABILITY.md
#   scripts/fuzz.sh --short 20       every target for 20 seconds (CI); writes .build-fuzz/RELIABILITY.md
#   scripts/fuzz.sh --only json ...  the named targets only
#
# The targets are in Fuzz/Fuzz.swift. SwiftPM's `--sanitize fuzzer` links libFuzzer's main but does not pass
# coverage instrumentation on to the compiler, so the flags are given here; without them libFuzzer runs blind.
# Seeds come from Specs/, Tests/Fixtures/ and the golden specs; the growing corpus and any crash input stay in
# .build-fuzz/. A crash fails the run: replay it with `swift run bindery-fuzz <target> <file>`, make it a
# regression test, then fix it.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
seconds=600
report=RELIABILITY.md
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --short) runs=0; seconds="${2:?--short takes a number of seconds}"; report=.build-fuzz/RELIABILITY.md; shift 2 ;;
    --only) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do only+=("$1"); shift; done ;;
    *) echo "fuzz: unknown argument $1" >&2; exit 2 ;;
  esac
done

targets=(json openapi csdl models errors dates paging multipart redirects)
[ ${#only[@]} -gt 0 ] && targets=("${only[@]}")

build=.build-fuzz
echo "fuzz: building bindery-fuzz with -sanitize=fuzzer,address into $build/ ..."
swift build --build-path "$build" --product bindery-fuzz \
  --sanitize fuzzer --sanitize address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -DBINDERY_FUZZ \
  2>&1 | grep -v "Cannot export local symbol" || true
binary="$build/debug/bindery-fuzz"
[ -x "$binary" ] || { echo "fuzz: error: the build failed" >&2; exit 1; }

# Seeds: copied with their paths (libFuzzer reads seed folders recursively).
seed() { # target files...
  local target=$1; shift
  mkdir -p "$build/seeds/$target"
  [ $# -eq 0 ] || cp --parents "$@" "$build/seeds/$target/"
}
seed_text() { # target name text
  mkdir -p "$build/seeds/$1"; printf '%s' "$3" > "$build/seeds/$1/$2"
}
rm -rf "$build/seeds"
fixtures() { find "$@" -name '*.json' | sort; }
# Graph's 5,000 fixtures are alike: every 20th of them, and all of the other services'.
mapfile -t all_fixtures < <(fixtures Tests/Fixtures/Graph | awk 'NR % 20 == 1'; fixtures Tests/Fixtures/OneDrive \
  Tests/Fixtures/OneNote Tests/Fixtures/Spark Tests/Fixtures/Inbox)
mapfile -t model_fixtures < <(fixtures Tests/Fixtures/Spark Tests/Fixtures/Inbox Tests/Fixtures/OneDrive)
seed json "${all_fixtures[@]}" Specs/*/bindery.json Specs/Inbox/Inbox.json
# The readers' seeds are the small specs: a whole service's spec takes seconds per run under AddressSanitizer.
seed openapi Tests/Golden/OpenAPI/spec.json Tests/Golden/RealWorld/spec.json Tests/PluginSample/Sources/Tasks/tasks.json
seed csdl Specs/Graph/*.csdl-schema.xml Tests/Golden/OData/spec.csdl.xml
seed models "${model_fixtures[@]}"
seed paging "${model_fixtures[@]}"
seed errors $(grep -l '"status": [45]' "${all_fixtures[@]}" | head -40)
seed_text errors odata '{"error":{"code":"itemNotFound","message":"gone","innerError":{"date":"2024-01-01T00:00:00","request-id":"r1"}}}'
seed_text errors spark '{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}'
seed_text errors inbox '{"type":"invalid_request_error","message":"bad"}'
seed_text errors nylas '{"error":{"type":"api.auth","message":"no","provider_error":{}},"request_id":"x"}'
seed_text errors html '<html><body>502 Bad Gateway</body></html>'
seed_text dates odata7 '2017-04-21T10:00:00.1234567Z'
seed_text dates offset '2017-04-21T10:00:00+02:00'
seed_text dates compact '2017-04-21T10:00:00-0530'
seed_text dates local '2017-04-21T10:00:00.0000000'
seed_text dates http 'Wed, 21 Oct 2015 07:28:00 GMT'
seed_text dates rfc850 'Wednesday, 21-Oct-15 07:28:00 GMT'
seed_text dates asctime 'Wed Oct 21 07:28:00 2015'
seed_text dates seconds '120'
seed_text dates decimal '0.249'
seed_text multipart file $'file\0notes.txt\0text/plain\0hello\0a field'
seed_text multipart quotes $'na"me\0a\r\nb.txt\0image/png\0\r\n--x\r\n\0'
seed_text redirects relative '/v1.0/drives/b/items/c/content'
seed_text redirects storage 'https://public.storage.example/download/abc?tempauth=x'
seed_text redirects port 'https://graph.example:8443/v1.0/me'
seed_text redirects linklocal 'http://169.254.169.254/latest/meta-data/'
seed_text redirects ipv6 'https://[fe80::1]/x'
seed_text redirects scheme 'file:///etc/passwd'

export SWIFT_BACKTRACE=enable=no   # libFuzzer's own handler reports and saves the input; the backtracer is slow
export LSAN_OPTIONS="suppressions=$PWD/scripts/fuzz-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p "$build/findings"
failed=()
rows=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  log="$build/fuzz-$target.log"
  echo "fuzz: $target (${runs/#0/unlimited} runs, at most ${seconds}s)"
  # The longest input libFuzzer makes, and the slowest run that counts as a finding (the readers read whole specs).
  case "$target" in
    openapi | csdl) max_len=32768 timeout=5 ;;
    models | paging) max_len=16384 timeout=1 ;;
    json) max_len=8192 timeout=1 ;;
    *) max_len=1024 timeout=1 ;;
  esac
  status=0
  BINDERY_FUZZ_TARGET=$target "$binary" "$corpus" "$build/seeds/$target" \
    -runs="$([ "$runs" -gt 0 ] && echo "$runs" || echo -1)" -max_total_time="$seconds" -timeout="$timeout" \
    -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target-" >"$log" 2>&1 || status=$?
  executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  seconds_run=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "")
  coverage=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" | tail -1 || true)
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ "$status" -eq 0 ]; then finding="none"; else
    finding="exit $status: $(grep -m1 -E 'ERROR: |Fatal error|fuzz invariant|deadly signal|timeout' "$log" | cut -c1-160 || true)"
    failed+=("$target")
    grep -E 'Test unit written to|artifact' "$log" | tail -2 || true
  fi
  echo "fuzz: $target: $executions executions, ${coverage:-no coverage line}, peak RSS ${rss} MB, findings: $finding"
  rows+=("| \`$target\` | $executions | ${seconds_run:-?} | ${coverage:-?} | $rss | $finding |")
done

# The handwritten part of RELIABILITY.md (from "## Findings" on) is kept across runs.
findings=""
[ -f RELIABILITY.md ] && findings=$(sed -n '/^## Findings/,$p' RELIABILITY.md)
{
  echo "# Reliability: fuzzing"
  echo
  echo "Written by \`scripts/fuzz.sh $([ "$report" = RELIABILITY.md ] || echo "--short $seconds")\` on $(date -u +%Y-%m-%d) ($(swift --version 2>/dev/null | head -1);"
  echo "$(nproc) cores). Each target is built with \`-sanitize=fuzzer,address\` and runs until"
  echo "$([ "$runs" -gt 0 ] && echo "$runs executions or ")$seconds seconds; an input slower than 1 s counts as a finding (\`-timeout=1\`; 5 s for the two spec readers, whose"
  echo "inputs are whole specs of up to 32 KB read by a debug build under AddressSanitizer)."
  echo "Coverage is libFuzzer's: \`cov\` covered edges, \`ft\` features, \`corp\` corpus entries; libxml2 and libcurl are"
  echo "system libraries, exercised but not instrumented."
  echo
  echo "| target | executions | seconds | coverage | peak RSS (MB) | findings |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Targets (Fuzz/Fuzz.swift): \`json\` BinderyJSON parse and write round trip; \`openapi\` and \`csdl\` the generator's"
  echo "readers; \`models\` decoding and schema validation of Spark \`Listing\`/\`Account\`, Inbox \`Message\`/\`Draft\` and"
  echo "OneDrive \`DriveItem\` with an encode round trip; \`errors\` the error parser of every dialect with any"
  echo "\`Retry-After\`; \`dates\` OData dates, HTTP dates and \`Retry-After\`; \`paging\` list pages in the OData, page-number"
  echo "and offset dialects, next and delta links (a link to another host is never trusted); \`multipart\` a form encoded"
  echo "and read back (headers stay on their lines, content comes back byte for byte); \`redirects\` \`Location\` values"
  echo "resolved against a service URL (credentials only to the same scheme, host and port)."
  [ -z "$findings" ] || printf '\n%s\n' "$findings"
} > "$report.tmp"
mv "$report.tmp" "$report"
echo "fuzz: wrote $report"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: error: findings in ${failed[*]} (inputs in $build/findings/)" >&2
  exit 1
fi
