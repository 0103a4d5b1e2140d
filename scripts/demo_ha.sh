#!/usr/bin/env bash
# The HA demo (scripts/demo.sh --ha): two fabrics in one PostgreSQL, one dashboard.
#  - fabric "east" (ibsim + OpenSM) watched by two daemons, a and b, sharing the fabric's
#    leader lease (ha: lease 6s, renew 2s): one polls, probes and acts, the other stands by;
#  - fabric "west" (a second ibsim + OpenSM) watched by a third daemon;
#  - a private PostgreSQL 15 started from a temp dir holds both fabrics.
# The dashboard is served by b (http://127.0.0.1:PORT/), so it stays up when the schedule
# kills the leader a with SIGKILL: b takes over within the lease and goes on acting. Its
# fabric selector shows east and west with their leaders.
#
# Usage: scripts/demo.sh --ha [--port N] [--faults on|off] [--duration S] [--ready-file F]
#                             [--no-build] [--keep]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/demo.sh
while (($#)); do
  demo_option "$@" ||
    { echo "demo.sh --ha: unknown option $1 (see the header of scripts/demo_ha.sh)" >&2; exit 2; }
  shift "$took"
done
demo_build

lab=$(mktemp -d /tmp/ibw-ha.XXXXXX)
chmod 755 "$lab"  # the database server runs as user postgres under it
source scripts/lib/simlab.sh
source scripts/lib/pg.sh
declare -A SIMS  # fabric -> "SIM_DIR SIM_SOCK SIM_IBSIM_PID SIM_OPENSM_PID SIM_CONSOLE_FD"
use_sim() { read -r SIM_DIR SIM_SOCK SIM_IBSIM_PID SIM_OPENSM_PID SIM_CONSOLE_FD <<<"${SIMS[$1]}"; }
pids=()
cleanup() {
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  for f in "${!SIMS[@]}"; do use_sim "$f"; SIM_DAEMON_PID= sim_stop; done
  stop_private_pg "$lab/pg"
  if ((keep)); then echo "lab kept in $lab"; else rm -rf "$lab"; fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM

start_private_pg "$lab/pg" >/dev/null
url=$(create_db ibwarden)
say "PostgreSQL 15: $url"

# fabric NAME LEAVES: generates and starts one fabric's ibsim + OpenSM in $lab/NAME.
fabric() {
  local name=$1 leaves=$2
  mkdir -p "$lab/$name"
  "$gen" --out "$lab/$name" --leaves "$leaves" --spines 4 --hosts-per-leaf 4 --seed 7 >/dev/null 2>&1
  SIM_TAG=$name sim_start "$lab/$name/net" "$lab/$name/sim"
  SIMS[$name]="$SIM_DIR $SIM_SOCK $SIM_IBSIM_PID $SIM_OPENSM_PID $SIM_CONSOLE_FD"
  say "fabric $name: $leaves leaves x 4 hosts, 4 spines; ibsim + OpenSM: subnet up"
}
fabric east 8
fabric west 4

umask 077
printf 'viewer %s\noperator %s\n' "$(head -c 18 /dev/urandom | base64)" \
  "$(head -c 18 /dev/urandom | base64)" >"$lab/tokens"
umask 022
# config FABRIC INSTANCE LISTEN
config() {
  local f=$1 inst=$2 listen=$3
  cat <<YAML
fabric:
  name: $f
  plan: $lab/$f/plan.csv
opensm:
  log: $lab/$f/sim/opensm.log
  poll: 100ms
  rediscover_delay: 200ms
counters:
  interval: 2s
store:
  backend: postgres
  url: "$url"
ha:
  lease: 6s
  renew: 2s
  instance: $inst
rules:
  file: $root/config/rules.yaml
actions:
  mode: enforce
web:
  listen: $listen
  tokens_file: $lab/tokens
YAML
}
config east a 127.0.0.1:0 >"$lab/a.yaml"
config east b "127.0.0.1:$port" >"$lab/b.yaml"
config west w 127.0.0.1:0 >"$lab/w.yaml"
declare -A DPID
daemon() {  # daemon FABRIC INSTANCE
  use_sim "$1"
  "$bin" check-config --config "$lab/$2.yaml" >/dev/null
  sim_daemon "$bin" "$lab/$2.yaml" "$lab/$2.log"
  DPID[$2]=$SIM_DAEMON_PID
  pids+=("$SIM_DAEMON_PID")
}
wait_log() {  # wait_log INSTANCE PATTERN
  until grep -q "$2" "$lab/$1.log" 2>/dev/null; do
    kill -0 "${DPID[$1]}" 2>/dev/null || { echo "daemon $1 exited:" >&2; tail "$lab/$1.log" >&2; exit 1; }
    sleep 0.1
  done
}
daemon east a
wait_log a '"lease taken'
daemon east b
daemon west w
wait_log b '"web API listening"'
web_port=$(grep -m1 '"web API listening"' "$lab/b.log" | sed -E 's/.*"port":([0-9]+).*/\1/')
dash="http://127.0.0.1:$web_port/"
wait_log w '"lease taken'
say "east: a leads, b stands by; west: w leads"
"$bin" status --config "$lab/b.yaml"

cat <<EOF

  Dashboard (served by the standby b; pick a fabric at the top): $dash
  Tokens: $lab/tokens
  Logs: $lab/a.log $lab/b.log $lab/w.log   Configs: $lab/{a,b,w}.yaml
  Status: $bin status --config $lab/b.yaml

EOF
if [[ -n $ready_file ]]; then
  printf 'url=%s\nlab=%s\nconfig=%s\nconfig_a=%s\nconfig_w=%s\npg_url=%s\n' "$dash" "$lab" \
    "$lab/b.yaml" "$lab/a.yaml" "$lab/w.yaml" "$url" >"$ready_file.tmp"
  mv "$ready_file.tmp" "$ready_file"
fi

started=$SECONDS
up=6  # the leaves' second uplink (ports 1-4 go to hosts, 5-8 to the spines)
schedule=(
  "15|east|symbol errors on the uplink leaf003/$up of east (the leader a disables it)|PerformanceSet \"leaf003\"[$up] PortCounters.SymbolErrorCounter=5000"
  "25|west|symbol errors on the uplink leaf002/$up of west (w disables it)|PerformanceSet \"leaf002\"[$up] PortCounters.SymbolErrorCounter=5000"
  "35|east|kill -9 of east's leader a: b takes over within the lease (6s) and a renewal (2s)|KILL a"
  "50|east|symbol errors on the uplink leaf005/$up of east (now b disables it)|PerformanceSet \"leaf005\"[$up] PortCounters.SymbolErrorCounter=5000"
)
# inject "fabric|what|console-command" (KILL a: kill -9 of east's leader a).
inject() {
  local f what cmd
  IFS='|' read -r f what cmd <<<"$1"
  say "fault: $what"
  if [[ $cmd == KILL* ]]; then
    kill -9 "${DPID[a]}"
    wait_log b '"lease taken'
    say "b holds east's lease now:"
    "$bin" status --config "$lab/b.yaml"
  else
    use_sim "$f"
    sim_console "$cmd"
  fi
}
alive() {
  local i
  for i in b w; do
    kill -0 "${DPID[$i]}" 2>/dev/null || { echo "daemon $i exited:" >&2; tail "$lab/$i.log" >&2; return 1; }
  done
}
demo_loop inject alive
