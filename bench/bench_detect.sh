#!/usr/bin/env bash
# Detection benchmark (issue 29): seeded trials of faults on the lab fat tree (6 leaves x 4
# hosts, 3 spines; ibsim + OpenSM), each probed and localized the way on-call would, from a
# random host, with the fabric discovered live while the fault is on:
#   lossy  a random switch-switch or host link drops 5-60% of what one end receives
#          (ibsim `Error "node"[port] RATE`), the hard case (a leaf's first uplink, which the
#          discovery crosses first) included;
#   reboot a random switch (a spine, or a leaf without the SM's host) reboots five times in
#          about 20 s (ibsim `Unlink "sw"` / `ReLink "sw"`), watched by `ibwarden run`;
#   congestion  a random switch port's PortXmitDiscards climbs by 60000 in one sweep (ibsim
#          `PerformanceSet`), watched by the daemon: a congestion finding, never an order;
#   clean  no fault.
# An `ibwarden run` in enforce mode with the shipped rules (probes off) watches the fabric for
# the whole bench, so every port it disables is a healthy one: no trial fault is one its rules
# may act on (lossy links are for the probes; a rebooting switch is an incident).
# Prints the share of faults named first (the top suspect holds the lossy link), the share
# pinned to that one cable (the top suspect holds nothing else), false suspects per clean
# run, how many probe runs needed the discovery to recover links, the reboots named as one
# switch_reboot incident of that switch, per-cable work orders on rebooting switches' links,
# congestion seen as a finding, orders or decisions on congested ports, and healthy ports
# disabled.
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
# The watching daemon (the SM's and its own host is node0001, behind leaf001), in the layout
# sim_config_base expects (DIR/plan.csv, DIR/sim, DIR/ibwarden.db).
cp "$work/gen/plan.csv" "$work/plan.csv"
{
  sim_config_base "$work" 1s
  printf 'rules:\n  file: %s/config/rules.yaml\nactions:\n  mode: enforce\n' "$root"
} >"$work/daemon.yaml"
sim_daemon "$bin" "$work/daemon.yaml" "$work/daemon.log"
for ((i = 0; i < 300; i++)); do
  grep -q '"fabric discovered"' "$work/daemon.log" 2>/dev/null && break
  kill -0 "$SIM_DAEMON_PID" 2>/dev/null || { echo "bench_detect: ibwarden run failed" >&2; tail "$work/daemon.log" >&2; exit 1; }
  sleep 0.1
done
query() { "$bin" "$@" --config "$work/daemon.yaml" --format json; }
# Trials start once the daemon has read every cabled switch port's counters twice (a
# baseline, then rates): a fault injected before a port's first reading becomes its baseline
# and goes unseen (SEED=1931 lost its first congestion trial so: "counter_reset 60000 -> 0",
# no jump).
for ((i = 0; i < 300; i++)); do
  query ports 2>/dev/null | python3 -c '
import json, sys
ports = [p for p in json.load(sys.stdin)
         if p["node"].startswith(("leaf", "spine")) and p["peer_node"]]  # not the unused ones
sys.exit(0 if ports and all(p.get("rates") for p in ports) else 1)' && break
  sleep 0.2
done
((i < 300)) || echo "bench_detect: some switch ports still had no rates after 300 tries" >&2
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

# Reboot targets: the spines and every leaf but the SM's.
mapfile -t reboot_targets < <(cut -d'|' -f1 "$work/ports" | sort -u | grep -v '^leaf001$')

# A trial's start: $since_us to the microsecond, as decisions and orders are stamped (a lossy
# trial's last errors, read by the daemon in the same second, can open an order just before
# the next trial's fault), and $since, the same second, for the CLI's --since.
trial_start() {
  since_us=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
  since=${since_us%.*}Z
}

misses=()
faults=0 first=0 pinned=0 cleans=0 false_suspects=0 recovered_runs=0 failed=0
reboots=0 reboots_named=0 reboot_cable_orders=0 congestions=0 congestion_found=0
congestion_orders=0
t0=$SECONDS
for ((t = 0; t < trials; t++)); do
  host=$(printf 'node%04d mlx5_0' $((1 + RANDOM % 24)))
  kind=lossy
  r=$((RANDOM % 20))
  ((r < 3)) && kind=clean
  ((r >= 3 && r < 6)) && kind=reboot
  ((r == 6)) && kind=congestion
  if [[ $kind == congestion ]]; then
    IFS='|' read -r node port peer pport <<<"${ports[RANDOM % ${#ports[@]}]}"
    trial_start
    sim_console "PerformanceSet \"$node\"[$port] PortCounters.PortXmitDiscards=60000"
    sleep 4  # a few 1 s sweeps
    ((++congestions))
    found=$(query events --port "$node/$port" --since "$since" |
      python3 -c 'import json,sys; print(sum(e["kind"] == "congestion" for e in json.load(sys.stdin)))')
    ((found > 0)) && ((++congestion_found))
    ((found > 0)) || misses+=("congestion $node/$port at $since: no finding")
    n=$(query decisions --since "$since" | python3 -c '
import json, sys
p, since = sys.argv[1], sys.argv[2]
print(sum(d["time"] >= since and d["node"] + "/" + str(d["port"]) == p
          for d in json.load(sys.stdin)))' "$node/$port" "$since_us")
    n=$((n + $(query workorders | python3 -c '
import json, sys
p, since = sys.argv[1], sys.argv[2]
print(sum(o["opened"] >= since and p in (o["a"], o["b"]) for o in json.load(sys.stdin)))' \
      "$node/$port" "$since_us")))
    congestion_orders=$((congestion_orders + n))
    sim_console "PerformanceSet \"$node\"[$port] PortCounters.PortXmitDiscards=0"
    continue
  fi
  if [[ $kind == reboot ]]; then
    sw=${reboot_targets[RANDOM % ${#reboot_targets[@]}]}
    trial_start
    for ((c = 0; c < 5; c++)); do
      sim_console "Unlink \"$sw\""
      sleep 1.5
      sim_console "ReLink \"$sw\""
      sleep 2.5
    done
    sleep 3
    ((++reboots))
    verdict=$(query incidents --since "$since" | python3 -c '
import json, sys
sw = sys.argv[1]
mine = [i for i in json.load(sys.stdin) if i["node"] == sw]
ok = len(mine) == 1 and mine[0]["kind"] in ("switch_reboot", "switch_down")
print("named" if ok else "missed:" + ",".join(i["kind"] + "@" + i["node"] for i in mine))' "$sw")
    if [[ $verdict == named ]]; then ((++reboots_named)); else misses+=("reboot $sw: $verdict"); fi
    mapfile -t orders < <(query workorders | python3 -c '
import json, sys
sw, since = sys.argv[1] + "/", sys.argv[2]
for o in json.load(sys.stdin):
    if (not o["rule"].startswith("incident_") and o["opened"] >= since and
            (o["a"].startswith(sw) or o["b"].startswith(sw))):
        print(o["opened"], o["rule"], o["a"], o["b"], o["summary"][:100])' "$sw" "$since_us")
    reboot_cable_orders=$((reboot_cable_orders + ${#orders[@]}))
    for o in "${orders[@]}"; do misses+=("reboot $sw at $since, order: $o"); done
    continue
  fi
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
# Every disable the watching daemon made is of a healthy port (see the header).
healthy_disabled=$(query decisions | python3 -c '
import json, sys
d = [x for x in json.load(sys.stdin) if x["action"] == "disable" and x["status"] == "executed"]
for x in d: print("disabled:", x["node"], x["port"], x["rule"], x["reason"][:100], file=sys.stderr)
print(len(d))')
kill -0 "$SIM_DAEMON_PID" 2>/dev/null || echo "bench_detect: ibwarden run died during the bench" >&2
pct() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.1f%%", b ? 100 * a / b : 0 }'; }
printf '%-52s %s\n' "trials (seed ${SEED:-1})" "$trials in $((SECONDS - t0)) s"
printf '%-52s %s\n' "lossy links (5-60%) named first" "$first of $faults ($(pct $first $faults)) [goal >= 98%]"
printf '%-52s %s\n' "... pinned to that one cable" "$pinned of $faults ($(pct $pinned $faults))"
printf '%-52s %s\n' "false suspects per clean run" \
  "$(awk -v a=$false_suspects -v b=$cleans 'BEGIN{printf "%.2f", b ? a / b : 0}') ($cleans clean runs) [goal 0]"
printf '%-52s %s\n' "probe runs whose discovery recovered lost links" "$recovered_runs"
printf '%-52s %s\n' "probe runs that failed" "$failed"
printf '%-52s %s\n' "switch reboots named as one incident of that switch" \
  "$reboots_named of $reboots ($(pct $reboots_named $reboots))"
printf '%-52s %s\n' "per-cable work orders on rebooting switches' links" "$reboot_cable_orders [goal 0]"
printf '%-52s %s\n' "congestion seen as a congestion finding" \
  "$congestion_found of $congestions ($(pct $congestion_found $congestions))"
printf '%-52s %s\n' "decisions or orders on congested ports" "$congestion_orders [goal 0]"
printf '%-52s %s\n' "healthy ports disabled (whole bench)" "$healthy_disabled [goal 0]"
for m in "${misses[@]}"; do echo "missed: $m"; done
