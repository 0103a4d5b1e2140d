#!/usr/bin/env bash
# Detection benchmark (issue 29): seeded trials of faults on the lab fat tree (6 leaves x 4
# hosts, 3 spines; ibsim + OpenSM), each probed and localized the way on-call would, from a
# random host, with the fabric discovered live while the fault is on:
#   lossy  a random switch-switch or host link drops 5-60% of what one end receives
#          (ibsim `Error "node"[port] RATE`), the hard case (a leaf's first uplink, which the
#          discovery crosses first) included;
#   clean  no fault.
# Prints the share of faults named first (the top suspect holds the lossy link), the share
# pinned to that one cable (the top suspect holds nothing else), false suspects per clean
# run, and how many probe runs needed the discovery to recover links.
# Not measured here yet: switch reboots and congestion (they need incidents and the congestion
# rule of issue 29), and healthy ports disabled (no daemon runs in this bench).
# Usage: bench/bench_detect.sh [--quick]   (--quick: 20 trials; default TRIALS=200, SEED=1)
source "$(dirname "$0")/lib.sh"
trials=${TRIALS:-200}
((quick)) && trials=20
RANDOM=${SEED:-1}
bench_build ibwarden ibw-labgen
bin=$build/cli/ibwarden
bench_sim_workdir detect
"$build/tests/lab/ibw-labgen" --out "$work/gen" --leaves 6 --spines 3 --hosts-per-leaf 4 \
  >/dev/null
sim_start "$work/gen/net" "$work/sim" 120
printf 'opensm:\n  dump_dir: %s\nprobes:\n  timeout: 2s\n  max_rate: 20000\n' "$SIM_DIR" \
  >"$work/ibwarden.yaml"
# Every switch port with a peer, "node port peer-node peer-port", from a clean discovery
# (right after SUBNET UP OpenSM may still be sweeping: a discovery can fail, so try again).
for ((i = 0; i < 20; i++)); do
  sim_run ibnetdiscover >"$work/topology.txt" 2>/dev/null && break
  sleep 1
done
awk '
  /^Switch/ { match($0, /# "[^"]*"/); node = substr($0, RSTART + 3, RLENGTH - 4) }
  /^Ca/ { node = "" }
  /^\[/ && node != "" {
    port = substr($1, 2, index($1, "]") - 2)
    match($0, /# "[^"]*"/); peer = substr($0, RSTART + 3, RLENGTH - 4)
    match($0, /"\[[0-9]+\]/); pport = substr($0, RSTART + 2, RLENGTH - 3)
    print node "|" port "|" peer "|" pport
  }' "$work/topology.txt" >"$work/ports"
mapfile -t ports <"$work/ports"
((${#ports[@]} > 0)) || { echo "bench_detect: no switch ports discovered" >&2; exit 1; }

misses=()
faults=0 first=0 pinned=0 cleans=0 false_suspects=0 recovered_runs=0 failed=0
t0=$SECONDS
for ((t = 0; t < trials; t++)); do
  host=$(printf 'node%04d mlx5_0' $((1 + RANDOM % 24)))
  kind=lossy
  ((RANDOM % 5 == 0)) && kind=clean
  if [[ $kind == lossy ]]; then
    IFS='|' read -r node port peer pport <<<"${ports[RANDOM % ${#ports[@]}]}"
    rate=$((5 + RANDOM % 56))
    # Either end may be the receiving one; a host's port is named through its switch peer.
    if ((RANDOM % 2)) && [[ $peer != node* ]]; then
      fault_node=$peer fault_port=$pport
    else
      fault_node=$node fault_port=$port
    fi
    sim_console "Error \"$fault_node\"[$fault_port] $rate"
  fi
  if ! (cd "$SIM_DIR" && SIM_HOST=$host IBSIM_SOCKNAME=$SIM_SOCK LD_PRELOAD=$SIM_PRELOAD \
      "$bin" probe --config "$work/ibwarden.yaml" --output "$work/p.jsonl") 2>"$work/probe.err" \
      >/dev/null; then
    ((++failed))
  fi
  grep -q 'the discovery lost link' "$work/probe.err" && ((++recovered_runs))
  (cd "$SIM_DIR" && SIM_HOST=$host IBSIM_SOCKNAME=$SIM_SOCK LD_PRELOAD=$SIM_PRELOAD \
    "$bin" localize --config "$work/ibwarden.yaml" --probes "$work/p.jsonl" --format json) \
    >"$work/l.json" 2>"$work/l.err" || true
  if [[ $kind == lossy ]]; then
    sim_console "Error \"$fault_node\"[$fault_port] 0"
    ((++faults))
    verdict=$(python3 - "$work/l.json" "$node/$port" "$peer/$pport" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    print("none"); sys.exit()
ends = {sys.argv[2], sys.argv[3]}
s = j.get("suspects") or []
if not s:
    print("none"); sys.exit()
names = [{f"{l[k]['node']}/{l[k]['port']}" for k in ("from", "to")} for l in s[0]["links"]]
hit = any(n == ends for n in names)
print("pinned" if hit and all(n == ends for n in names) else "first" if hit else "miss")
PY
)
    if [[ $verdict == first || $verdict == pinned ]]; then
      ((++first))
    else
      # localize's last word (none when it found nothing: grep then selects no line).
      why=$( (grep -v '^ibwarn\|query_smp' "$work/l.err" || true) | tail -1)
      misses+=("$fault_node/$fault_port ${rate}% from $host: $verdict $why")
    fi
    [[ $verdict == pinned ]] && ((++pinned))
  else
    ((++cleans))
    n=$(python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))["suspects"]))
except Exception: print(1)' "$work/l.json")
    false_suspects=$((false_suspects + n))
  fi
done
pct() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.1f%%", b ? 100 * a / b : 0 }'; }
printf '%-52s %s\n' "trials (seed ${SEED:-1})" "$trials in $((SECONDS - t0)) s"
printf '%-52s %s\n' "lossy links (5-60%) named first" "$first of $faults ($(pct $first $faults)) [goal >= 98%]"
printf '%-52s %s\n' "... pinned to that one cable" "$pinned of $faults ($(pct $pinned $faults))"
printf '%-52s %s\n' "false suspects per clean run" \
  "$(awk -v a=$false_suspects -v b=$cleans 'BEGIN{printf "%.2f", b ? a / b : 0}') ($cleans clean runs) [goal 0]"
printf '%-52s %s\n' "probe runs whose discovery recovered lost links" "$recovered_runs"
printf '%-52s %s\n' "probe runs that failed" "$failed"
printf '%-52s %s\n' "switch reboots, congestion, healthy ports disabled" "not measured (see header)"
for m in "${misses[@]}"; do echo "missed: $m"; done
