#!/usr/bin/env bash
# The kill -9 fault harness: a storm of faults on a real IB control plane (ibsim + OpenSM)
# while `ibwarden run` (enforce mode, webhook on) is killed with SIGKILL at random instants and
# restarted, then every promise checked against the fabric and the OpenSM log
# (tests/fault/check.py):
#   - every OpenSM log line that gives an event (trap 128, link state, sweeps...) is stored
#     exactly once, across kills and log rotations;
#   - no work order is duplicated;
#   - the guard's caps held at every sample of the fabric's disabled ports;
#   - every port disabled on the fabric has its executed decision and vice versa; no decision
#     is left pending after a reconciling start; no host link was ever disabled;
#   - the webhook receiver saw every work-order revision (by idempotency key).
# The storm: host links flapping (trap 128s), symbol-error jumps on uplinks (the rules disable
# them), lossy uplinks (MADs dropped, the daemon's SMPs too), OpenSM log rotation (rename +
# SIGUSR1), a webhook receiver failing half its requests, and concurrent `ibwarden disable` /
# `enable` calls through the same guard.
#
# Usage: scripts/fault-storm.sh [--kills N] [--seed S] [--no-build] [--build-dir DIR] [--keep]
#   --kills N      SIGKILLs of the daemon (default 100)
#   --seed S       seeds the fault sequence and the kill delays (default: from the clock; the
#                  seed is printed, timings of the fabric itself are not replayable)
#   --no-build     use the binaries already built in --build-dir (default ${BUILD_DIR:-build})
#   --keep         leave the lab directory (store, logs, samples) for inspection
# Exit 0 only when every check holds. The last line is the figures line:
#   kills N, events expected E/stored S/duplicated D, orders duplicated O,
#   max disabled M vs cap C, unrecorded disables U, webhook lost L
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kills=100 seed=$(($(date +%s) % 100000)) build=1 keep=0 build_dir=${BUILD_DIR:-build}
while (($#)); do
  case $1 in
    --kills) kills=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "fault-storm.sh: unknown option $1 (see the header of scripts/fault-storm.sh)" >&2; exit 2 ;;
  esac
done
if ((build)); then
  scripts/install-deps.sh
  BUILD_DIR=$build_dir scripts/build.sh >/dev/null
fi
build_dir=$(realpath -m "$build_dir")
bin=$build_dir/cli/ibwarden gen=$build_dir/tests/lab/ibw-labgen
osm_events=$build_dir/tests/fault/ibw-fault-osm-events
for f in "$bin" "$gen" "$osm_events"; do
  [[ -x $f ]] || { echo "fault-storm.sh: $f is not built" >&2; exit 2; }
done

lab=$(mktemp -d /tmp/ibwarden-fault.XXXXXX)
source scripts/lib/simlab.sh
source scripts/lib/storm.sh
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
cleanup() {
  set +e
  touch "$lab/stop"
  [[ -n ${STORM_PID:-} ]] && kill "$STORM_PID" 2>/dev/null
  [[ -n ${SAMPLER_PID:-} ]] && kill "$SAMPLER_PID" 2>/dev/null
  [[ -n ${SIM_DAEMON_PID:-} ]] && kill -9 "$SIM_DAEMON_PID" 2>/dev/null
  [[ -n ${RECEIVER_PID:-} ]] && kill "$RECEIVER_PID" 2>/dev/null
  sim_stop
  if ((keep)); then echo "lab kept in $lab"; else rm -rf "$lab"; fi
}
trap cleanup EXIT
RANDOM=$seed
say "seed $seed, $kills kills, lab $lab"

# 6 leaves x 3 hosts, 3 spines, 2 cables per leaf-spine pair: leaf ports 1-3 hosts, 4-9 up.
leaves=6 spines=3 hosts=3 lpp=2
"$gen" --out "$lab" --leaves $leaves --spines $spines --hosts-per-leaf $hosts \
  --links-per-pair $lpp --seed "$seed" >/dev/null
sim_start "$lab/net" "$lab/sim"
say "ibsim + OpenSM: subnet up"

python3 tests/lab/webhook_receiver.py --port 0 --out "$lab/webhook.jsonl" \
  --port-file "$lab/webhook.port" --fail-rate 0.5 --seed "$seed" --max-fail-run 3 &
RECEIVER_PID=$!
until [[ -s $lab/webhook.port ]]; do sleep 0.05; done

cap_total=6 cap_switch=2 cap_hour=60
cat >"$lab/ibwarden.yaml" <<YAML
fabric:
  name: storm
  plan: $lab/plan.csv
opensm:
  log: $lab/sim/opensm.log
  dump_dir: $lab/sim
  poll: 100ms
  rediscover_delay: 200ms
  read_existing: true
counters:
  interval: 1s
  timeout: 100ms
  retries: 1
store:
  path: $lab/ibwarden.db
rules:
  file: $root/config/rules.yaml
actions:
  mode: enforce
  max_disabled_total: $cap_total
  max_disabled_per_switch: $cap_switch
  max_actions_per_hour: $cap_hour
  min_up_links: 2
  timeout: 2s
workorders:
  webhook: http://127.0.0.1:$(cat "$lab/webhook.port")/orders
  webhook_timeout: 2s
log:
  level: info
YAML
"$bin" check-config --config "$lab/ibwarden.yaml" >/dev/null

start_daemon() { sim_daemon "$bin" "$lab/ibwarden.yaml" "$lab/daemon.log.$1"; }
# The first start stores where it begins reading (offset 0 of the log: read_existing); a file
# rotated away before that is not the daemon's to read, so the storm waits for it.
start_daemon 0
until [[ $(sqlite3 "$lab/ibwarden.db" "SELECT count(*) FROM cursors WHERE source = 'opensm'" \
  2>/dev/null) == 1 ]]; do
  kill -0 "$SIM_DAEMON_PID" 2>/dev/null || { tail "$lab/daemon.log.0" >&2; exit 1; }
  sleep 0.1
done
storm_sampler "$lab" &
SAMPLER_PID=$!
storm_faults "$lab" "$bin" $leaves $spines $hosts $lpp &
STORM_PID=$!
aimed=0
for ((k = 1; k <= kills; k++)); do
  # Every third kill is aimed at a port action in flight (tests/fault/snipe.py); the others
  # land at random, a third of them while the daemon is still starting.
  if ((k % 3 == 0)) && python3 tests/fault/snipe.py "$lab/ibwarden.db" "$SIM_DAEMON_PID" 4; then
    aimed=$((aimed + 1))
  else
    sleep "$(storm_delay)"
  fi
  kill -9 "$SIM_DAEMON_PID" 2>/dev/null || true
  { wait "$SIM_DAEMON_PID" || true; } 2>/dev/null  # no "Killed" line from the shell
  storm_free_clients
  start_daemon "$k"
  ((k % 10)) || say "$k kills"
done

say "storm over: stopping faults, then OpenSM; a last daemon start reconciles and catches up"
touch "$lab/stop"
wait "$STORM_PID" || true
STORM_PID=""
storm_clear_faults "$lab" $leaves $hosts $((spines * lpp))
sleep 2  # the last traps and sweeps reach the log
kill "$SIM_OPENSM_PID" 2>/dev/null || true
wait "$SIM_OPENSM_PID" 2>/dev/null || true
kill -9 "$SIM_DAEMON_PID" 2>/dev/null || true
wait "$SIM_DAEMON_PID" 2>/dev/null || true
kill "$SAMPLER_PID" 2>/dev/null || true
wait "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=""
storm_free_clients
start_daemon final
if ! storm_settle "$lab" 180; then
  say "the last daemon did not catch up within 180 s (see $lab/daemon.log.final); its errors:"
  grep -E '"level":"error"|reconcil|pending|ibpanic' "$lab/daemon.log.final" | tail -n 20 | cut -c1-400 || true
  sqlite3 -cmd ".timeout 2000" "$lab/ibwarden.db" \
    "SELECT 'pending: ' || id || ' ' || rule || ' ' || action || ' ' || node || '/' || port || ' ' || reason FROM decisions WHERE status = 'pending'" || true
fi
kill -TERM "$SIM_DAEMON_PID" 2>/dev/null || true
wait "$SIM_DAEMON_PID" 2>/dev/null || true
SIM_DAEMON_PID=""
storm_sample_once "$lab" "$lab/fabric.final"

# Everything the checks read: the logs oldest first, the store through the CLI and SQLite.
mapfile -t logs < <(ls "$lab/sim"/opensm.log.* 2>/dev/null | sort -V)
"$osm_events" "${logs[@]}" "$lab/sim/opensm.log" >"$lab/expected.tsv"
"$bin" events --config "$lab/ibwarden.yaml" --since 1d --limit 10000000 --format json >"$lab/events.json"
"$bin" decisions --config "$lab/ibwarden.yaml" --since 1d --limit 10000000 --format json \
  >"$lab/decisions.json"
"$bin" workorders --config "$lab/ibwarden.yaml" --format json >"$lab/workorders.json"
python3 tests/fault/check.py --lab "$lab" --kills "$kills" --aimed "$aimed" --rotations "${#logs[@]}" \
  --cap-total $cap_total --cap-switch $cap_switch --cap-hour $cap_hour
