#!/usr/bin/env bash
# Web API benchmark (issues 6 and 15): GET /api/v1/ports under wrk on a 200k-port store.
# ibw-bench-web_lab (bench/web_lab.cpp) loads the 65,536-endpoint 3-tier fat tree of
# `ibw-labgen --tiers 3 --k 64 --no-net --ibnetdiscover` and its plan through the daemon's own
# topology code, gives every port counters (1% with errors), 10,000 events and 8 ports disabled
# by ibwarden, and serves the production path (daemon::WebBackend, web::Api, web::Server as
# `ibwarden run` configures them, a viewer token). Every 60 s it writes new counters for every
# port, as the daemon's sweep does. wrk then asks, with the bearer header and
# `Accept-Encoding: gzip` as the dashboard does, for:
#   the default page (limit 1000), the last page, one leaf's ports by name and by 0xGUID, the
#   ports down, the ports with errors, and pages at random offsets (a fresh one per request:
#   none from the page cache).
# Each case: latency p50/p90/p99/max at a fixed RATE (default 500 requests/s), goal p99 <= 20 ms.
# Plain wrk has no fixed-rate mode: bench/bench_web.lua paces each wrk thread on a fixed
# schedule and reports the rate achieved and the requests sent late (see there); a case meets
# the goal when p99 <= 20 ms and at least 95% of the rate was achieved.
# Also: the closed-loop maximum (wrk -t2 -c8, as fast as it answers), for context, and the
# server's CPU during the paced run.
# Usage: bench/bench_web.sh [--quick]   (--quick: k=16, ~3,000 ports; 5 s runs)
# Environment: BUILD_DIR (default build), RATE (500), DURATION (20s), CONNECTIONS (16, paced),
# K (64), BENCH_NICE (e.g. -10 as root: runs the server and wrk at that niceness).
source "$(dirname "$0")/lib.sh"
bench_build_in_tree ibw-bench-web_lab ibw-labgen
if ! command -v wrk >/dev/null; then
  sudo=
  ((EUID)) && sudo=sudo
  $sudo apt-get install -y wrk >/dev/null
fi
rate=${RATE:-500}
duration=${DURATION:-20s}
conns=${CONNECTIONS:-16}
nice=(nice -n "${BENCH_NICE:-0}")
k=${K:-64}
((quick)) && k=${K:-16} && duration=${DURATION:-5s}
bench_workdir web
export GLIBC_TUNABLES=$(daemon_malloc_tunables)  # as `ibwarden run` allocates
lab=""
at_exit 'bench_kill "$lab"'
fail() {
  echo "$*; server log: $work/lab.log" >&2
  keep_work=1
  exit 1
}

"$build/tests/lab/ibw-labgen" --out "$work" --tiers 3 --k "$k" --spare-ports 0 --no-net \
  --ibnetdiscover >/dev/null
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
(umask 077 && echo "viewer $token" >"$work/tokens")
t0=$SECONDS
"${nice[@]}" "$build/bench/ibw-bench-web_lab" --topology "$work/topology.txt" \
  --plan "$work/plan.csv" --dir "$work" --tokens "$work/tokens" --sweep 60 \
  --ready-file "$work/ready" >"$work/lab.log" 2>&1 &
lab=$!
until [[ -f $work/ready ]]; do
  kill -0 "$lab" 2>/dev/null || fail "the web lab exited"
  ((SECONDS - t0 < 600)) || fail "the web lab did not come up in 600 s"
  sleep 0.2
done
port=$(sed -n 's/^port=//p' "$work/ready")
ports=$(sed -n 's/^ports=//p' "$work/ready")
base=http://127.0.0.1:$port/api/v1
auth="Authorization: Bearer $token"
gzip_hdr="Accept-Encoding: gzip"

curl -sf -H "$auth" "$base/ports?limit=1" -o "$work/first.json" || fail "GET /ports failed"
leaf=$(grep -o '"node":"[^"]*"' "$work/first.json" | head -1 | cut -d'"' -f4)
curl -sf -H "$auth" "$base/ports?node=$leaf&limit=1" -o "$work/leaf.json"
guid=$(grep -o '"node_guid":"[^"]*"' "$work/leaf.json" | head -1 | cut -d'"' -f4)
[[ -n $leaf && -n $guid ]] || fail "no node in the first page"
last=$(((ports - 1) / 1000 * 1000))
# Offsets at random over the whole list, for the uncached case.
awk -v n="$ports" 'BEGIN { srand(7); for (i = 0; i < 20000; ++i)
  printf "/api/v1/ports?offset=%d\n", int(rand() * (n - 1000)) }' >"$work/paths"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$lab/stat"; }
hz=$(getconf CLK_TCK)
# wrk_run RATE THREADS CONNECTIONS DURATION URL [PATHS] -> the RESULT line of bench_web.lua
wrk_run() {
  IBW_WRK_RATE=$1 IBW_WRK_THREADS=$2 IBW_WRK_PATHS=${6:-} "${nice[@]}" wrk -t"$2" -c"$3" -d"$4" \
    --timeout 5s -H "$auth" -H "$gzip_hdr" -s "$root/bench/bench_web.lua" "$5" \
    >"$work/wrk.out" 2>&1 || fail "wrk failed: $(cat "$work/wrk.out")"
  grep '^RESULT' "$work/wrk.out" || fail "no RESULT from wrk: $(cat "$work/wrk.out")"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

labels=("default page (limit 1000)" "last page (offset=$last)" "one leaf by name (node=$leaf)"
  "one leaf by GUID (node=$guid)" "ports down (state=down)" "ports with errors (has_errors=true)"
  "random offsets, uncached (offset=0..$((ports - 1000)))")
queries=("ports" "ports?offset=$last" "ports?node=$leaf" "ports?node=$guid" "ports?state=down"
  "ports?has_errors=true" "ports")
rows=() results=()
for i in "${!queries[@]}"; do
  url=$base/${queries[$i]}
  paths=""
  [[ $i == 6 ]] && paths=$work/paths
  read -r bytes gzbytes < <(curl -sf -H "$auth" -o /dev/null -w '%{size_download} ' "$url"
    curl -sf -H "$auth" -H "$gzip_hdr" -o /dev/null -w '%{size_download}\n' "$url")
  wrk_run 0 2 8 3s "$url" "$paths" >/dev/null  # warm-up
  c0=$(cpu_ticks)
  paced=$(wrk_run "$rate" 2 "$conns" "$duration" "$url" "$paths")
  c1=$(cpu_ticks)
  secs=${duration%s}
  cpu=$(awk -v t=$((c1 - c0)) -v hz="$hz" -v s="$secs" 'BEGIN{ printf "%.0f%%", 100 * t / hz / s }')
  closed=$(wrk_run 0 2 8 5s "$url" "$paths")
  results+=("$paced")
  rows+=("| ${labels[$i]} | $(awk -v b="$bytes" -v z="$gzbytes" 'BEGIN{ printf "%.0f / %.0f KiB", b / 1024, z / 1024 }') \
| $(field rps "$paced") | $(field p50 "$paced") | $(field p90 "$paced") | $(field p99 "$paced") \
| $(field max "$paced") | $(field late "$paced") | $cpu | $(field rps "$closed") \
| $(field p99 "$closed") |")
  for r in "$paced" "$closed"; do
    (($(field errors "$r") + $(field non2xx "$r") == 0)) || fail "errors in \`${queries[$i]}\`: $r"
  done
done

echo "store: $ports ports (3-tier k=$k fat tree), counters rewritten every 60 s;" \
  "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); niceness ${BENCH_NICE:-0}; build $(grep -o 'CMAKE_BUILD_TYPE:STRING=.*' "$build/CMakeCache.txt" | cut -d= -f2)"
echo "paced: wrk -t2 -c$conns at $rate req/s for $duration; closed loop: wrk -t2 -c8 for 5s;" \
  "Accept-Encoding: gzip; times in ms"
echo
echo "| GET /api/v1/... | body (plain / gzip) | rps achieved | p50 | p90 | p99 | max | late | server CPU | closed-loop rps | closed-loop p99 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
for i in "${!queries[@]}"; do
  r=${results[$i]}
  p99=$(field p99 "$r") got=$(field rps "$r")
  ok=$(met eval "le $p99 20 && ge $got $(awk -v r="$rate" 'BEGIN{ print r * 0.95 }')")
  bench_result "GET /api/v1/ports at $ports ports: ${labels[$i]}" "p99 $p99 ms at $got rps" \
    "goal p99 <= 20 ms at $rate rps" "$(awk -v p="$p99" 'BEGIN{ printf "%.0f%% of goal", 100 * p / 20 }')" "$ok"
done
