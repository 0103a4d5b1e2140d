#!/usr/bin/env bash
# Remediation benchmark (issue 4): `ibwarden run` in enforce mode with config/rules.yaml on a
# 1,072-node ibsim fabric (32 leaves x 32 hosts, 16 spines), counters every 2 s. Reports
#  - flap -> executed disable: a leaf uplink is flapped 5 times (Unlink, wait for link_down,
#    ReLink, wait for link_up); the latency runs from the 5th ReLink on the console to the
#    executed link_flap decision being queryable (the verdict needs the link back up);
#  - symbol-error jump -> executed disable: PerformanceSet SymbolErrorCounter on another
#    uplink to the decision (bounded by the counter interval: a sweep must see it);
#  - rule evaluation for 100k ports (ibw-bench-rules_eval), target <= 50 ms per sweep.
# Medians of 3 runs, each on a fresh simulator and daemon. Usage: bench/bench_remedy.sh [--quick]   (--quick: 8 leaves x 8 hosts, 8 spines)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0
[[ ${1:-} == --quick ]] && quick=1
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh >/dev/null
build=$root/${BUILD_DIR:-build}
bin=$build/cli/ibwarden
work=$(mktemp -d /tmp/ibwarden-bench-remedy.XXXXXX)
source scripts/lib/simlab.sh
keep_work=0
cleanup() {
  set +e  # a killed child's status (143) must not end the cleanup half-way under set -e
  sim_stop
  ((keep_work)) || rm -rf "$work"
}
trap cleanup EXIT

leaves=32 spines=16 hosts=32
((quick)) && leaves=8 spines=8 hosts=8
"$build/tests/lab/ibw-labgen" --out "$work" --leaves $leaves --spines $spines --hosts-per-leaf $hosts

count() {  # count PATTERN COMMAND-ARGS... : lines of the JSON output matching PATTERN
  local pattern=$1
  shift
  "$bin" "$@" --config "$work/ibwarden.yaml" --format json 2>/dev/null | grep -c "$pattern" || true
}
wait_more() {  # wait_more BEFORE PATTERN ARGS... (gives up after 60 s, saying so)
  local before=$1 t0=$SECONDS
  shift
  while (($(count "$@") <= before)); do
    if ((SECONDS - t0 > 60)); then
      echo "timed out waiting for more \"$1\" in \`ibwarden ${*:2}\`; daemon log: $work/daemon.log" >&2
      keep_work=1
      return 1
    fi
    sleep 0.02
  done
}
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.3f", b - a }'; }

# Each run gets a fresh simulator and daemon: ibsim keeps a disabled port's LinkState Active,
# so OpenSM never routes around it, and LID-routed counter queries through it are lost.
flaps=() jumps=()
first_up=$((hosts + 1))
for run in 1 2 3; do
  rm -rf "$work/sim" "$work"/ibwarden.db*
  sim_start "$work/net" "$work/sim" 300
  {
    sim_config_base "$work" 2s
    cat <<YAML
rules:
  file: $root/config/rules.yaml
actions:
  mode: enforce
YAML
  } >"$work/ibwarden.yaml"
  sim_daemon "$bin" "$work/ibwarden.yaml" "$work/daemon.log"
  until grep -q '"fabric discovered"' "$work/daemon.log" 2>/dev/null; do sleep 0.1; done
  sleep 5  # a few counter sweeps
  # Flap leaf002's run-th uplink five times (not leaf001: the SM host hangs off it).
  leaf=leaf002 port=$((first_up + run - 1))
  for cycle in 1 2 3 4 5; do
    before=$(count '"kind": "link_down"' events --port "$leaf/$port")
    sim_console "Unlink \"$leaf\"[$port]"
    wait_more "$before" '"kind": "link_down"' events --port "$leaf/$port"
    before=$(count '"kind": "link_up"' events --port "$leaf/$port")
    before_decisions=$(count '"status": "executed"' decisions)
    t0=$EPOCHREALTIME
    sim_console "ReLink \"$leaf\"[$port]"
    wait_more "$before" '"kind": "link_up"' events --port "$leaf/$port"
  done
  wait_more "$before_decisions" '"status": "executed"' decisions
  flaps+=("$(since "$t0")")
  # A symbol-error jump on an uplink of another leaf.
  before_decisions=$(count '"status": "executed"' decisions)
  t0=$EPOCHREALTIME
  sim_console "PerformanceSet \"leaf003\"[$port] PortCounters.SymbolErrorCounter=5000"
  wait_more "$before_decisions" '"status": "executed"' decisions
  jumps+=("$(since "$t0")")
  sim_daemon_stop
  sim_stop || true
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
ports=$(grep -o '"ports_polled":[0-9]*' "$work/daemon.log" | tail -1 | cut -d: -f2)
echo "fabric: $(grep -cE '^(Switch|Hca)' "$work/net") nodes, ${ports} ports polled every 2 s, enforce mode"
printf '%-52s %s s (runs: %s)\n' "5th flap (ReLink) -> disable executed, median" "$(median "${flaps[@]}")" "${flaps[*]}"
printf '%-52s %s s (runs: %s; counter interval 2 s)\n' "SymbolErrorCounter jump -> disable executed, median" "$(median "${jumps[@]}")" "${jumps[*]}"
"$build/bench/ibw-bench-rules_eval"
