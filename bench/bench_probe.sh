#!/usr/bin/env bash
# Probe benchmark: one full `ibwarden probe` round (every LID LID-routed + every link by
# directed route, one NodeInfo SMP each: --count 1) on the 536-node lab fabric (16 leaves x
# 32 hosts, 8 spines; ibsim + OpenSM), beside the stock way of touching every LID: one
# `perfquery LID 1` process per LID, in the same run. Wall times; the ratio is
# perfquery-loop / probe. The probe runs with its default limits (16 in flight, 2000 MADs/s:
# the pacing bounds it) and with the limits lifted (64 in flight, 1,000,000 MADs/s), so the
# table shows what pacing costs. The topology comes from an ibnetdiscover file made once,
# so neither side pays for discovery. Best of $RUNS (default 3) for the probe; the perfquery
# loop runs once (it is the slow side).
# Usage: bench/bench_probe.sh [--quick]   (--quick: 4 leaves x 8 hosts, 2 spines)
source "$(dirname "$0")/lib.sh"
runs=${RUNS:-3}
build_jobs=2 bench_build ibwarden ibw-labgen
bin=$build/cli/ibwarden
bench_sim_workdir probe

# seconds_since T0: wall seconds from T0 ($EPOCHREALTIME) to now.
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.3f", b - a }'; }
keep_min() {
  if [[ -z ${!1} ]] || awk -v a="$2" -v b="${!1}" 'BEGIN{exit !(a<b)}'; then
    printf -v "$1" '%s' "$2"
  fi
}
row() { printf '%-58s %9s %s\n' "$1" "$2" "${3:-}"; }

leaves=16 spines=8 hosts=32
((quick)) && leaves=4 spines=2 hosts=8
bench_sim_fat_tree $leaves $spines $hosts
"${on_sim[@]}" ibnetdiscover >"$work/topology.txt" 2>/dev/null
bench_sim_settle 30
nodes=$(grep -cE '^(Switch|Ca)' "$work/topology.txt")
# Every LID: switches' port-0 LIDs and CA ports' LIDs, as ibnetdiscover prints them.
grep -oE '(lid|base lid) [0-9]+' "$work/topology.txt" | awk '{print $NF}' | sort -un \
  >"$work/lids"
own=$("${on_sim[@]}" ibstat 2>/dev/null | awk '/Base lid/ {print $3; exit}')

config() {  # config MAX_IN_FLIGHT MAX_RATE
  printf 'fabric:\n  discovery: %s\nprobes:\n  max_in_flight: %s\n  max_rate: %s\n' \
    "$work/topology.txt" "$1" "$2" >"$work/probe-$1-$2.yaml"
  echo "$work/probe-$1-$2.yaml"
}
paced=$(config 16 2000) unpaced=$(config 64 1000000)

# probe_once VAR CONFIG: wall time of one `ibwarden probe --count 1` process; keeps the
# summary line in $work/summary.
probe_once() {
  local t0=$EPOCHREALTIME
  "${on_sim[@]}" "$bin" probe --config "$2" --count 1 --output "$work/obs.jsonl" \
    2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  keep_min "$1" "$(seconds_since "$t0")"
  grep '^ibwarden probe: from' "$work/err" >"$work/summary"
}
t_paced="" t_unpaced=""
for ((r = 0; r < runs; r++)); do
  probe_once t_paced "$paced"
  probe_once t_unpaced "$unpaced"
done
summary=$(cat "$work/summary")
observations=$(wc -l <"$work/obs.jsonl")
lost=$(grep -c '"lost":[1-9]' "$work/obs.jsonl" || true)

# The stock way: one perfquery per LID (ours included), serially, on port 1 (every node has
# one; without a port perfquery asks for port 0, which ibsim's CAs do not answer).
t0=$EPOCHREALTIME
failed=0
while read -r lid; do
  "${on_sim[@]}" perfquery "$lid" 1 >/dev/null 2>&1 || failed=$((failed + 1))
done <"$work/lids"
t_perf=$(seconds_since "$t0")

echo "## Probe round: $leaves leaves x $hosts hosts, $spines spines ($nodes nodes) on ibsim +" \
  "OpenSM (probe best of $runs; load average $(cut -d' ' -f1 /proc/loadavg))"
echo "LIDs: $(wc -l <"$work/lids") (ours: $own); observations per round: $observations" \
  "($lost with loss); perfquery failures: $failed"
echo "last unpaced round: ${summary#ibwarden probe: }"
echo
row "perfquery LID 1, once per LID (serial processes)" "$t_perf"
row "ibwarden probe --count 1 (16 in flight, 2000 MADs/s)" "$t_paced" \
  "$(ratio "$t_perf" "$t_paced") faster than the perfquery loop"
row "ibwarden probe --count 1 (64 in flight, unpaced)" "$t_unpaced" \
  "$(ratio "$t_perf" "$t_unpaced") faster than the perfquery loop"
cd "$root"
