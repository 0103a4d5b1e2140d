#!/usr/bin/env bash
# The ibwarden demo: a generated fat tree (with a few cabling mistakes) on a real IB control
# plane (ibsim + OpenSM), `ibwarden run` watching it in enforce mode and probing every route
# (cursed routes), faults injected on a schedule, and the on-call dashboard served at
# http://127.0.0.1:8080/ until Ctrl-C.
#
# Usage: scripts/demo.sh [--port N] [--faults on|off] [--duration S] [--ready-file F]
#                        [--large] [--no-build] [--keep] [--tour] [--ha]
#   --port N        web port (default 8080; 0 = any free port, printed)
#   --faults off    inject nothing (the end-to-end test injects its own)
#   --duration S    stop after S seconds (default: run until Ctrl-C)
#   --ready-file F  when the dashboard is up, write "KEY=VALUE" lines (url, tokens, console
#                   FIFO, lab directory, config) to F for scripts driving the demo
#   --large         1,072 nodes (32 leaves x 32 hosts, 16 spines, 3,072 ports) instead of 112
#   --no-build      use the binaries already built in ${BUILD_DIR:-build}
#   --keep          leave the lab directory (store, logs) for inspection
#   --tour          the step-by-step CLI tour instead (scripts/demo_tour.sh)
#   --ha            two fabrics in one PostgreSQL, one of them watched by two daemons sharing
#                   its leader lease, one dashboard (scripts/demo_ha.sh; same options)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/demo.sh
large=0
while (($#)); do
  case $1 in
    --large) large=1; shift ;;
    --tour) shift; exec scripts/demo_tour.sh "$@" ;;
    --ha) shift; exec scripts/demo_ha.sh "$@" ;;
    *)
      demo_option "$@" || { echo "demo.sh: unknown option $1 (see the header of scripts/demo.sh)" >&2; exit 2; }
      shift "$took" ;;
  esac
done
[[ $faults == on || $faults == off ]] || { echo "demo.sh: --faults on|off" >&2; exit 2; }

demo_build

lab=$(mktemp -d /tmp/ibwarden-demo.XXXXXX)
source scripts/lib/simlab.sh
cleanup() {
  set +e  # a killed child's status (143) must not end the cleanup half-way under set -e
  sim_stop
  if ((keep)); then echo "lab kept in $lab"; else rm -rf "$lab"; fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM


# 12 leaves x 8 hosts, 4 spines: 112 nodes; leaf ports 1-8 go to hosts, 9-12 to the spines.
leaves=12 spines=4 hosts=8
((large)) && leaves=32 spines=16 hosts=32
"$gen" --out "$lab" --leaves $leaves --spines $spines --hosts-per-leaf $hosts \
  --swap 1 --misplug 1 --degrade 1 --seed 7 >/dev/null 2>&1
say "fabric: $leaves leaves, $spines spines, $((leaves * hosts)) hosts," \
  "$(($(wc -l <"$lab/plan.csv") - 1)) planned cables (a few miswired)"
sim_start "$lab/net" "$lab/sim"
say "ibsim + OpenSM: subnet up"

token() { head -c 24 /dev/urandom | base64 | tr -d '\n'; }
viewer=$(token) operator=$(token) admin=$(token)
umask 077
printf 'viewer %s\noperator %s\nadmin %s\n' "$viewer" "$operator" "$admin" >"$lab/tokens"
umask 022
{
  sim_config_base "$lab" 2s demo
  cat <<YAML
rules:
  file: $root/config/rules.yaml
actions:
  mode: enforce
workorders:
  verify_after: 2m
probes:
  interval: 5s
  count: 10
  timeout: 200ms
  window: 6
web:
  listen: 127.0.0.1:$port
  tokens_file: $lab/tokens
YAML
} >"$lab/ibwarden.yaml"
"$bin" check-config --config "$lab/ibwarden.yaml" >/dev/null
sim_daemon "$bin" "$lab/ibwarden.yaml" "$lab/daemon.log"
until grep -q '"web API listening"' "$lab/daemon.log" 2>/dev/null; do
  kill -0 "$SIM_DAEMON_PID" 2>/dev/null || { echo "ibwarden run failed:" >&2; tail "$lab/daemon.log" >&2; exit 1; }
  if grep -q '"web API not started"' "$lab/daemon.log"; then
    echo "the dashboard could not start (port $port in use? try --port 0):" >&2
    grep '"web API not started"' "$lab/daemon.log" >&2
    exit 1
  fi
  sleep 0.1
done
web_port=$(grep -m1 '"web API listening"' "$lab/daemon.log" | sed -E 's/.*"port":([0-9]+).*/\1/')
url="http://127.0.0.1:$web_port/"
until grep -q '"fabric discovered"' "$lab/daemon.log" 2>/dev/null; do
  kill -0 "$SIM_DAEMON_PID" 2>/dev/null || { echo "ibwarden run failed:" >&2; tail "$lab/daemon.log" >&2; exit 1; }
  sleep 0.1
done
curl -sf -X POST -H "Authorization: Bearer $operator" "${url}api/v1/audit" >/dev/null ||
  say "the first audit failed (see $lab/daemon.log)"

cat <<EOF

  Dashboard:  $url
  Tokens (paste one to sign in; the file is $lab/tokens):
    viewer    $viewer
    operator  $operator
    admin     $admin
  Logs: $lab/daemon.log   Store: $lab/ibwarden.db   Config: $lab/ibwarden.yaml

EOF
if [[ -n $ready_file ]]; then
  umask 077
  printf 'url=%s\nviewer=%s\noperator=%s\nadmin=%s\nconsole=%s\nlab=%s\nconfig=%s\n' \
    "$url" "$viewer" "$operator" "$admin" "$SIM_DIR/console" "$lab" "$lab/ibwarden.yaml" \
    >"$ready_file.tmp"
  mv "$ready_file.tmp" "$ready_file"
  umask 022
fi

started=$SECONDS
# at SECONDS_AFTER_START "what" console-command...: the fault schedule.
# Uplinks are the leaf ports after the hosts: 9-12 (10 = the second uplink), 33-48 with --large.
up=$((hosts + 2))
schedule=(
  "20|symbol errors on the uplink leaf005/$up (the rules disable it)|PerformanceSet \"leaf005\"[$up] PortCounters.SymbolErrorCounter=5000"
  "45|a few symbol errors on leaf002/$((up + 1)) (below the thresholds: heat on the grid only)|PerformanceSet \"leaf002\"[$((up + 1))] PortCounters.SymbolErrorCounter=12"
  '60|the host link leaf006/2 flaps 5 times (the guard refuses to cut a host off)|flap "leaf006"[2]'
  "90|the uplink leaf008/$((up + 2)) goes down (a planned link down)|Unlink \"leaf008\"[$((up + 2))]"
  "110|a cursed link: leaf007/$((up + 1)) silently drops 40% of what it receives (no counter on the sender; probes find it, the cursed_path rule disables it: see Routes)|Error \"leaf007\"[$((up + 1))] 40"
)
# inject "what|console-command" (flap TARGET: 5 times down and up again).
inject() {
  local what cmd target
  IFS='|' read -r what cmd <<<"$1"
  say "fault: $what"
  if [[ $cmd == flap* ]]; then
    target=${cmd#flap }
    for _ in 1 2 3 4 5; do
      sim_console "Unlink $target"; sleep 1; sim_console "ReLink $target"; sleep 1
    done
  else
    sim_console "$cmd"
  fi
}
alive() {
  kill -0 "$SIM_DAEMON_PID" 2>/dev/null || { echo "ibwarden run exited:" >&2; tail "$lab/daemon.log" >&2; return 1; }
}
demo_loop inject alive
