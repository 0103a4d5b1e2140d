#!/usr/bin/env bash
# The ibwarden demo tour (scripts/demo.sh --tour): builds everything, generates a miswired fat-tree fabric, runs it on a
# real IB control plane (ibsim + OpenSM), discovers it live and prints the cabling audit;
# then runs the event watcher, injects a link failure and symbol errors, and queries both;
# then turns on the rules in enforce mode and shows a bad uplink disabled with its work order.
# Usage: scripts/demo_tour.sh [--keep]   (--keep leaves the lab directory for inspection)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
keep=0
[[ ${1:-} == --keep ]] && keep=1

scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh >/dev/null
bin=$root/${BUILD_DIR:-build}/cli/ibwarden
gen=$root/${BUILD_DIR:-build}/tests/lab/ibw-labgen

lab=$(mktemp -d /tmp/ibwarden-demo.XXXXXX)
source scripts/lib/simlab.sh
cleanup() {
  set +e  # a killed child's status (143) must not end the cleanup half-way under set -e
  sim_stop
  ((keep)) || rm -rf "$lab"
}
trap cleanup EXIT

echo "== 1. A 2-tier fat tree (8 leaves, 4 spines, 64 hosts) cabled with mistakes"
"$gen" --out "$lab" --leaves 8 --spines 4 --hosts-per-leaf 8 \
  --swap 2 --misplug 1 --drop 1 --degrade 1 --extra 1 --unknown 1 --seed 42
echo "   plan:   $lab/plan.csv ($(($(wc -l <"$lab/plan.csv") - 1)) cables; also plan.yaml and plan.ndt)"

echo "== 2. ibsim simulates it; OpenSM brings the subnet up"
sim_start "$lab/net" "$lab/sim"
echo "   $(grep -m1 'SUBNET UP' "$lab/sim/opensm.log" | cut -c1-80)"

echo "== 3. ibwarden discovers the fabric live over SMPs and audits it against the plan"
echo "   \$ ibwarden audit --plan plan.csv --live"
echo
set +e
sim_run "$bin" audit --plan "$lab/plan.csv" --live 2> >(grep -v sim_connect >&2)
rc=$?
sim_run "$bin" audit --plan "$lab/plan.csv" --live --format json --output "$lab/audit.json" 2>/dev/null
set -e
echo
echo "== exit status $rc (0 = matches the plan, 1 = findings, 2 = error); JSON report: $lab/audit.json"

echo
echo "== 4. The event watcher: ibwarden run tails OpenSM's log, polls counters, stores events"
{ sim_config_base "$lab" 1s demo; echo "rules: null"; } >"$lab/ibwarden.yaml"  # rules: step 5
"$bin" check-config --config "$lab/ibwarden.yaml"
sim_daemon "$bin" "$lab/ibwarden.yaml" "$lab/daemon.log"
until grep -q '"fabric discovered"' "$lab/daemon.log" 2>/dev/null; do sleep 0.1; done
sleep 2  # a first counter sweep, so that the injected errors show up as a delta
echo "   faults injected on the ibsim console:"
echo '     Unlink "leaf003"[4]   and   PerformanceSet "leaf004"[2] PortCounters.SymbolErrorCounter=4000'
sim_console 'Unlink "leaf003"[4]'
sim_console 'PerformanceSet "leaf004"[2] PortCounters.SymbolErrorCounter=4000'
sleep 3
echo
echo "   \$ ibwarden events --config ibwarden.yaml --since 1m"
"$bin" events --config "$lab/ibwarden.yaml" --since 1m | grep -v ' trap ' | sed 's/^/   /'
echo
echo "   \$ ibwarden ports --config ibwarden.yaml --node leaf004 --format json   (port 2)"
"$bin" ports --config "$lab/ibwarden.yaml" --node leaf004 --format json |
  python3 -c 'import json,sys; p=[x for x in json.load(sys.stdin) if x["port"]==2][0]; print(json.dumps({k:p[k] for k in ("node","port","peer_node","cable_id","state")} | {"SymbolErrorCounter": p["counters"]["SymbolErrorCounter"], "delta": p["deltas"].get("SymbolErrorCounter"), "rate_per_s": p["rates"].get("SymbolErrorCounter")}, indent=1))' |
  sed 's/^/   /'

echo
echo "== 5. Auto-disable: rules and the guard in enforce mode (config reloaded with SIGHUP)"
sed -i "s|^rules: null\$|rules:\n  file: $root/config/rules.yaml|" "$lab/ibwarden.yaml"
cat >>"$lab/ibwarden.yaml" <<YAML
actions:
  mode: enforce
YAML
kill -HUP "$SIM_DAEMON_PID"
until grep -q '"configuration reloaded"' "$lab/daemon.log" 2>/dev/null; do sleep 0.1; done
sleep 2
echo '   fault injected: PerformanceSet "leaf005"[10] PortCounters.SymbolErrorCounter=5000  (an uplink)'
sim_console 'PerformanceSet "leaf005"[10] PortCounters.SymbolErrorCounter=5000'
until "$bin" decisions --config "$lab/ibwarden.yaml" | grep -q leaf005; do sleep 0.2; done
echo
echo "   \$ ibwarden decisions --config ibwarden.yaml"
"$bin" decisions --config "$lab/ibwarden.yaml" | sed 's/^/   /'
echo "   \$ ibwarden workorders --config ibwarden.yaml"
"$bin" workorders --config "$lab/ibwarden.yaml" | sed 's/^/   /'
echo "   read back with the stock tool, over the directed route ibwarden used:"
dr=$("$bin" decisions --config "$lab/ibwarden.yaml" --format json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["evidence"].get("address","").removeprefix("DR path "))')
echo "   \$ smpquery -D portinfo $dr 10"
sim_run smpquery -D portinfo "$dr" 10 2>/dev/null | grep -E "^(LinkState|PhysLinkState)" | sed 's/^/     /' || true
echo "   a technician reseats the cable and brings the link back:"
echo "   \$ ibwarden enable --config ibwarden.yaml --port leaf005/10 --reason \"reseated\""
sim_run "$bin" enable --config "$lab/ibwarden.yaml" --port leaf005/10 --reason "reseated" 2>/dev/null |
  sed 's/^/   /' || true
"$bin" workorders --config "$lab/ibwarden.yaml" | grep -A1 "C-leaf005-10" | sed 's/^/   /'
sim_daemon_stop
((keep)) && echo "   lab kept in $lab"
exit 0
