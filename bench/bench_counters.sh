#!/usr/bin/env bash
# Counter sweep benchmark (issue 3): a whole-fabric counter sweep by the pipelined
# CounterPoller (bench/counter_sweep.cpp) next to infiniband-diags' `ibqueryerrors`, on the
# same ibsim + OpenSM fabric: 32 leaves x 32 hosts, 16 spines (1,072 nodes, 3,072 ports with
# a peer). Best of $RUNS (default 5) each, runs of the tools interleaved so that a shared,
# busy machine slows them alike:
#  - cached topology: the sweep alone (in-process time; cold = with one ClassPortInfo query
#    per LID, warm = capabilities cached) and the whole process loading an ibnetdiscover
#    cache, vs `ibqueryerrors --load-cache` (default, --skip-sl, --counters);
#  - discovery + sweep (`--all`) vs plain `ibqueryerrors`, which discovers the fabric too;
#  - the same after one error counter is set on every switch: ibqueryerrors reads a switch's
#    AllPortSelect (port 0xFF) sum first and reads its ports one by one only when that sum
#    shows errors, so on a clean fabric it sends far fewer MADs than a per-port sweep.
# Our sweeps (issue 32 item 4): an errors sweep reads one AllPortSelect sum per switch (48)
# and one PortCounters per CA port (1,024): 1,072 MADs warm on a clean fabric, + 1,072
# ClassPortInfo cold; a switch whose sum moved (or, cold, is not all zero) has its ports read
# one by one in the same sweep. A full sweep (data counters for rates; the daemon's every
# counters.data_interval) reads the sums and PortCounters and PortCountersExtended of every
# port (6,192 MADs). Each timed process runs 6 sweeps with --data-every 3: sweeps 0 (cold), 1,
# 3, 4 are errors sweeps, 2 and 5 full. Counted with strace on this fabric, ibqueryerrors
# --load-cache --skip-sl sends 3,216 MADs when clean and 7,504 with the switch errors.
# Target: the errors sweep >= 5x (cold) / >= 10x (warm) faster than ibqueryerrors.
# Usage: bench/bench_counters.sh [--quick]   (--quick: 8 leaves x 8 hosts, 4 spines)
source "$(dirname "$0")/lib.sh"  # bench_result; its ratio() is replaced by this script's below
runs=${RUNS:-5}
bench_build ibw-bench-counter_sweep ibw-labgen
sweep=$build/bench/ibw-bench-counter_sweep
bench_sim_workdir counters

# timed OUTVAR CMD...: wall time of one run of CMD in seconds (bash's clock); keeps the
# smaller of it and OUTVAR's current value.
timed() {
  local var=$1 t0 t
  shift
  t0=$EPOCHREALTIME
  "$@" >"$work/out" 2>"$work/err" || true
  t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.4f", b - a }')
  keep_min "$var" "$t"
}
keep_min() {
  if [[ -z ${!1} ]] || awk -v a="$2" -v b="${!1}" 'BEGIN{exit !(a<b)}'; then
    printf -v "$1" '%s' "$2"
  fi
}
# ratio BASE OURS: "speedup BASE/OURS".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b <= 0) b = 0.0001; printf "speedup %.1fx", a / b }'; }
row() {
  local name=$1 value=$2
  shift 2
  printf '%-60s %8s %s\n' "$name" "$value" "$*"
}
# field NAME: a numeric field of the last summary line in $work/out.
field() { grep '"type":"summary"' "$work/out" | tail -1 | sed -E "s/.*\"$1\":([0-9]+).*/\\1/"; }
# durations SWEEPS [KIND]: in-process durations (s) of the summary lines in $work/out for the
# given sweep numbers (a grep -E alternative such as "0" or "[1-9]") and kind (errors or full;
# default both), fastest first.
durations() {
  grep '"type":"summary"' "$work/out" | grep -E "\"sweep\":($1)," | grep "\"kind\":\"${2:-}" |
    sed -E 's/.*"duration_us":([0-9]+).*/\1/' | sort -n | awk '{ printf "%.4f\n", $1 / 1e6 }'
}
# sweep_once ARGS...: one process running 6 sweeps (--data-every 3); keeps the best cold
# (first), warm errors and warm full in-process sweep times in cold, warm and full, and the
# MADs of the last warm errors and full sweeps in mads_errors and mads_full.
sweep_once() {
  "${on_sim[@]}" "$sweep" --cache "$work/fabric.cache" --quiet --sweeps 6 --data-every 3 "$@" \
    >"$work/out" 2>/dev/null
  keep_min cold "$(durations 0 errors | head -1)"
  keep_min warm "$(durations '[1-9]' errors | head -1)"
  keep_min full "$(durations '[1-9]' full | head -1)"
  mads_errors=$(grep '"kind":"errors"' "$work/out" | tail -1 | sed -E 's/.*"mads_sent":([0-9]+).*/\1/')
  mads_full=$(grep '"kind":"full"' "$work/out" | tail -1 | sed -E 's/.*"mads_sent":([0-9]+).*/\1/')
}
# cached_table: the cached-topology comparison.
cached_table() {
  cold="" warm="" full="" t_cache="" q_cache="" q_cache_sl="" q_counters=""
  local c=$work/fabric.cache
  for ((r = 0; r < runs; r++)); do
    sweep_once
    timed t_cache "${on_sim[@]}" "$sweep" --cache "$c" --quiet --data-every 2
    timed q_cache "${on_sim[@]}" ibqueryerrors --load-cache "$c"
    timed q_cache_sl "${on_sim[@]}" ibqueryerrors --load-cache "$c" --skip-sl
    timed q_counters "${on_sim[@]}" ibqueryerrors --load-cache "$c" --counters --skip-sl
  done
  "${on_sim[@]}" ibqueryerrors --load-cache "$c" --skip-sl 2>/dev/null |
    grep -E '^## +(Summary|[0-9]+ ports)' | sed 's/^/    /' || true
  # Against the faster of the two error sweeps (the counts differ only by SL path queries).
  local base
  base=$(awk -v a="$q_cache" -v b="$q_cache_sl" 'BEGIN{ print (a < b) ? a : b }')
  row "ibqueryerrors --load-cache CACHE" "$q_cache"
  row "ibqueryerrors --load-cache CACHE --skip-sl" "$q_cache_sl"
  row "ibqueryerrors --load-cache CACHE --counters --skip-sl" "$q_counters"
  row "counter sweep alone, cold (errors; + ClassPortInfo per LID)" "$cold" \
    "$(ratio "$base" "$cold") over ibqueryerrors"
  row "counter sweep alone, warm (errors; $mads_errors MADs)" "$warm" \
    "$(ratio "$base" "$warm") over ibqueryerrors"
  row "counter sweep alone, warm full (data counters; $mads_full MADs)" "$full" \
    "$(ratio "$base" "$full") over ibqueryerrors"
  row "ibw-bench-counter_sweep --cache CACHE (process, 1 errors sweep)" "$t_cache" \
    "$(ratio "$base" "$t_cache") over ibqueryerrors"
  [[ ${1:-} == goals ]] || return 0
  local cold_x warm_x
  cold_x=$(awk -v a="$base" -v b="$cold" 'BEGIN{ printf "%.1f", a / (b > 0 ? b : 0.0001) }')
  warm_x=$(awk -v a="$base" -v b="$warm" 'BEGIN{ printf "%.1f", a / (b > 0 ? b : 0.0001) }')
  bench_result "counter sweep, ibsim $targets ports, cold (first sweep)" "$cold s" \
    "ibqueryerrors --load-cache: $base s" "${cold_x}x faster (goal >= 5x)" "$(met ge "$cold_x" 5)"
  bench_result "counter sweep, ibsim $targets ports, warm" "$warm s" \
    "ibqueryerrors --load-cache: $base s" "${warm_x}x faster (goal >= 10x)" "$(met ge "$warm_x" 10)"
}

leaves=32 spines=16 hosts=32
((quick)) && leaves=8 spines=4 hosts=8
bench_sim_fat_tree $leaves $spines $hosts
"${on_sim[@]}" ibnetdiscover --cache "$work/fabric.cache" >/dev/null 2>&1
# Let OpenSM settle (at most 60 checks), then warm up each tool once.
bench_sim_settle 60
"${on_sim[@]}" "$sweep" --cache "$work/fabric.cache" --quiet >/dev/null 2>&1
"${on_sim[@]}" ibqueryerrors --load-cache "$work/fabric.cache" >/dev/null 2>&1 || true

# Sanity: every port with a peer answers.
"${on_sim[@]}" "$sweep" --cache "$work/fabric.cache" --quiet >"$work/out" 2>/dev/null
targets=$(field targets) samples=$(field samples)
echo "## Counter sweep: $leaves leaves x $hosts hosts, $spines spines on ibsim + OpenSM" \
  "(best of $runs; load average $(cut -d' ' -f1 /proc/loadavg))"
echo "ports with a peer: $targets, answered: $samples; MADs per cold sweep: $(field mads_sent)" \
  "(ClassPortInfo: $(field class_port_info)), max outstanding: $(field max_outstanding)"
[[ $targets == "$samples" && $targets -gt 0 ]] || { echo "not every port answered" >&2; exit 1; }

echo
echo "### Cached topology, clean fabric (wall seconds)"
cached_table goals

echo
echo "### Discovery + sweep, clean fabric (wall seconds)"
t_all="" q_live="" q_live_sl="" disc=""
for ((r = 0; r < runs; r++)); do
  timed t_all "${on_sim[@]}" "$sweep" --all --quiet --data-every 2
  timed q_live "${on_sim[@]}" ibqueryerrors
  timed q_live_sl "${on_sim[@]}" ibqueryerrors --skip-sl
  timed disc "${on_sim[@]}" ibnetdiscover
done
row "ibnetdiscover (discovery alone, for reference)" "$disc"
row "ibqueryerrors" "$q_live"
row "ibqueryerrors --skip-sl" "$q_live_sl"
q_best=$(awk -v a="$q_live" -v b="$q_live_sl" 'BEGIN{ print (a < b) ? a : b }')
row "ibw-bench-counter_sweep --all (discovery + 1 errors sweep)" "$t_all" \
  "$(ratio "$q_best" "$t_all") over ibqueryerrors"

echo
echo "### Pipelining depth (sweep alone, warm errors sweep)"
for w in 1 4 16 64 256; do
  cold="" warm="" full=""
  for ((r = 0; r < runs; r++)); do sweep_once --window $w; done
  row "--window $w" "$warm" "(max outstanding $(field max_outstanding))"
done

echo
echo "### Cached topology, SymbolErrorCounter=1 on port 1 of every switch (wall seconds)"
grep -E '^Switch' "$work/gen/net" | sed -E 's/^[^"]*"([^"]*)".*/\1/' | while read -r sw; do
  sim_console "PerformanceSet \"$sw\"[1] PortCounters.SymbolErrorCounter=1"
done
sleep 0.5
cached_table
cd "$root"
