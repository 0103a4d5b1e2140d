#!/usr/bin/env bash
# Daemon benchmark (issue 3): runs `ibwarden run` against a 1,072-node ibsim fabric (32
# leaves x 32 hosts, 16 spines: ~3,000 linked ports) with a 2 s counter interval and reports
#  - peak and steady RSS of the daemon (VmHWM / VmRSS), next to OpenSM's own RSS;
#  - the latency from an injected Unlink on the ibsim console to the link_down event being
#    queryable with `ibwarden events` (median of 5), and the same for ReLink -> link_up.
# Usage: bench/bench_daemon.sh [--quick]   (--quick: 8 leaves x 8 hosts, 4 spines)
source "$(dirname "$0")/lib.sh"
BUILD_DIR=$BUILD_DIR scripts/build.sh >/dev/null
bin=$build/cli/ibwarden
gen=$build/tests/lab/ibw-labgen
bench_sim_workdir daemon

leaves=32 spines=16 hosts=32
((quick)) && leaves=8 spines=4 hosts=8
"$gen" --out "$work" --leaves $leaves --spines $spines --hosts-per-leaf $hosts
sim_start "$work/net" "$work/sim" 300
{ sim_config_base "$work" 2s; echo "rules: null"; } >"$work/ibwarden.yaml"
sim_daemon "$bin" "$work/ibwarden.yaml" "$work/daemon.log"
until grep -q '"fabric discovered"' "$work/daemon.log" 2>/dev/null; do sleep 0.1; done
sleep 6  # a few counter sweeps

count_events() {  # count_events KIND NODE PORT
  "$bin" events --config "$work/ibwarden.yaml" --format json --port "$2/$3" 2>/dev/null |
    grep -c "\"kind\": \"$1\"" || true
}
latency() {  # latency CONSOLE-CMD KIND NODE PORT -> seconds
  local before after t0
  before=$(count_events "$2" "$3" "$4")
  t0=$EPOCHREALTIME
  sim_console "$1"
  while :; do
    after=$(count_events "$2" "$3" "$4")
    ((after > before)) && break
    sleep 0.02
  done
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.3f", b - a }'
}
downs=() ups=()
for i in 2 3 4 5 6; do  # port 1 is the SM host's own link
  downs+=("$(latency "Unlink \"leaf001\"[$i]" link_down leaf001 "$i")")
  ups+=("$(latency "ReLink \"leaf001\"[$i]" link_up leaf001 "$i")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
hwm=$(awk '/VmHWM/ {print $2}' /proc/$SIM_DAEMON_PID/status)
rss=$(awk '/VmRSS/ {print $2}' /proc/$SIM_DAEMON_PID/status)
osm_rss=$(awk '/VmRSS/ {print $2}' /proc/$SIM_OPENSM_PID/status 2>/dev/null || echo 0)
ports=$(grep -o '"ports_polled":[0-9]*' "$work/daemon.log" | tail -1 | cut -d: -f2)
echo "fabric: $(grep -cE '^(Switch|Hca)' "$work/net") nodes, ${ports} ports polled every 2 s"
printf '%-44s %s\n' "daemon RSS now / peak" "$((rss / 1024)) MiB / $((hwm / 1024)) MiB"
printf '%-44s %s\n' "OpenSM RSS (reference)" "$((osm_rss / 1024)) MiB"
printf '%-44s %s s (runs: %s)\n' "Unlink -> link_down queryable, median" "$(median "${downs[@]}")" "${downs[*]}"
printf '%-44s %s s (runs: %s)\n' "ReLink -> link_up queryable, median" "$(median "${ups[@]}")" "${ups[*]}"
