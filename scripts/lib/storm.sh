# Shell helpers of the kill -9 fault harness (scripts/fault-storm.sh). Source after
# scripts/lib/simlab.sh and sim_start; RANDOM is seeded by the caller, so the fault sequence of
# a seed is the same on every run (the fabric's own timing is not).

# storm_delay: seconds before the next SIGKILL, 0.00-2.99 (a third of the kills land while the
# daemon is still starting: reconciling, opening the store, discovering).
storm_delay() { printf '%d.%02d\n' $((RANDOM % 3)) $((RANDOM % 100)); }

# storm_free_clients: ibsim keeps the slot of a SIGKILLed client until it next fails to write
# to it, and serves at most 10 (an 11th client, the next daemon, dies in umad2sim's
# sim_init): ask it which clients are attached and drop the dead ones, until none is listed.
storm_free_clients() {
  local log=$SIM_DIR/ibsim.log off i attempt dead
  for ((attempt = 0; attempt < 3; attempt++)); do
    off=$(stat -c %s "$log")
    sim_console Attached
    # Its answer ends with the console's prompt; a loaded machine may take a while to print it.
    for ((i = 0; i < 100; i++)); do
      tail -c +$((off + 1)) "$log" | grep -q 'sim>' && break
      sleep 0.05
    done
    dead=$(tail -c +$((off + 1)) "$log" |
      sed -n -E 's/.*Client ([0-9]+): pid ([0-9]+) connected.*/\1 \2/p' |
      while read -r client pid; do
        kill -0 "$pid" 2>/dev/null || { sim_console "X $client"; echo "$client"; }
      done | wc -l)
    ((dead)) || return 0
  done
}

# storm_sample_once LAB OUT: the fabric's ports in PhysState Disabled, one iblinkinfo line
# each ("0xGUID "name" LID PORT[ ] ==( ... Active/Disabled)==> ...").
storm_sample_once() {
  sim_run iblinkinfo -l 2>/dev/null | grep -E '/ *Disabled\)' >"$2" || true
}

# storm_sampler LAB: every 0.5 s until LAB/stop exists, appends "=== <unix time>" and the
# disabled ports' lines to LAB/samples.txt (tests/fault/check.py holds them against the caps).
storm_sampler() {
  local lab=$1
  while [[ ! -e $lab/stop ]]; do
    storm_sample_once "$lab" "$lab/sample.tmp"
    { echo "=== $(date +%s.%N)"; cat "$lab/sample.tmp"; } >>"$lab/samples.txt"
    sleep 0.5
  done
}

# storm_manual LAB BIN VERB PORT REASON: one `ibwarden disable|enable` in the background
# (concurrent with the daemon and other calls), its JSON decision appended to LAB/manual.jsonl.
# Skipped when two are already running: ibsim serves 10 clients in all.
storm_manual() {
  local lab=$1 bin=$2 verb=$3 port=$4 reason=$5
  (($(jobs -rp | wc -l) < 3)) || return 0
  (sim_run "$bin" "$verb" --config "$lab/ibwarden.yaml" --port "$port" --reason "$reason" \
    --format json >>"$lab/manual.jsonl" 2>>"$lab/manual.err" || true) &
}

# storm_faults LAB BIN LEAVES SPINES HOSTS LINKS_PER_PAIR: injects faults until LAB/stop exists.
# Leaf ports 1..HOSTS go to hosts, the next SPINES*LINKS_PER_PAIR to the spines (ibw-labgen).
# Host links are only flapped (Unlink/ReLink): ReLink also re-enables a port disabled over
# SMPs, so the harness never relinks a port ibwarden may have disabled (the guard never
# disables a host's last link).
storm_faults() {
  local lab=$1 bin=$2 leaves=$3 spines=$4 hosts=$5 lpp=$6
  local up_n=$((spines * lpp)) rot=0 i=0 leaf up host j v row
  declare -A sym=()
  while [[ ! -e $lab/stop ]]; do
    i=$((i + 1))
    leaf=$(printf 'leaf%03d' $((RANDOM % leaves + 1)))
    up=$((hosts + 1 + RANDOM % up_n)) host=$((RANDOM % hosts + 1))
    case $((RANDOM % 10)) in
      0 | 1)  # a host link flaps a few times: trap 128s, link_flap decisions the guard refuses
        for ((j = RANDOM % 3 + 1; j > 0; j--)); do
          sim_console "Unlink \"$leaf\"[$host]"
          sleep 0.3
          sim_console "ReLink \"$leaf\"[$host]"
          sleep 0.3
        done
        ;;
      2 | 3)  # a symbol-error jump on an uplink (16-bit counter: it saturates): symbol_ber disables
        v=$((${sym[$leaf/$up]:-0} + 150 + RANDOM % 2000))
        ((v <= 65535)) || v=65535
        sym[$leaf/$up]=$v
        sim_console "PerformanceSet \"$leaf\"[$up] PortCounters.SymbolErrorCounter=$v"
        ;;
      4)  # a lossy uplink for a second: MADs through it are dropped, the daemon's too
        sim_console "Error \"$leaf\"[$up] $((20 + RANDOM % 40))"
        sleep 1
        sim_console "Error \"$leaf\"[$up] 0"
        ;;
      5)  # logrotate the way docs/watcher.md advises: rename, then SIGUSR1 (OpenSM reopens its log)
        rot=$((rot + 1))
        mv "$SIM_DIR/opensm.log" "$SIM_DIR/opensm.log.$rot"
        kill -USR1 "$SIM_OPENSM_PID"
        ;;
      6 | 7)  # an operator's disable racing the daemon: an uplink, now and then a host link
        if ((RANDOM % 5 == 0)); then up=$host; fi
        storm_manual "$lab" "$bin" disable "$leaf/$up" "storm $i"
        ;;
      8 | 9)  # an operator re-enables a port ibwarden disabled, so the budget turns over
        row=$(sqlite3 -cmd ".timeout 2000" "$lab/ibwarden.db" \
          "SELECT printf('0x%016x/%d', node_guid, port) FROM disabled_ports ORDER BY random() LIMIT 1" \
          2>/dev/null || true)
        if [[ -n $row ]]; then storm_manual "$lab" "$bin" enable "$row" "storm $i"; fi
        ;;
    esac
    sleep "0.$((RANDOM % 5))"
  done
  wait
}

# storm_clear_faults LAB LEAVES HOSTS UP_PORTS: no lossy port is left behind.
storm_clear_faults() {
  local leaves=$2 hosts=$3 up_n=$4 l p
  for ((l = 1; l <= leaves; l++)); do
    for ((p = hosts + 1; p <= hosts + up_n; p++)); do
      sim_console "$(printf 'Error "leaf%03d"[%d] 0' "$l" "$p")"
    done
  done
}

# storm_settle LAB TIMEOUT_S: waits until the running daemon has reconciled every pending
# intent, delivered its whole outbox and stored the OpenSM log up to its end. 0 when settled.
storm_settle() {
  local lab=$1 timeout=$2 t0=$SECONDS q pending undelivered cursor size inode
  q() { sqlite3 -cmd ".timeout 2000" "$lab/ibwarden.db" "$1" 2>/dev/null || echo "?"; }
  sleep 2
  while ((SECONDS - t0 < timeout)); do
    pending=$(q "SELECT count(*) FROM decisions WHERE status = 'pending'")
    undelivered=$(q "SELECT count(*) FROM outbox WHERE delivered_us = 0")
    cursor=$(q "SELECT value FROM cursors WHERE source = 'opensm'")
    size=$(stat -c %s "$lab/sim/opensm.log") inode=$(stat -c %i "$lab/sim/opensm.log")
    if [[ $pending == 0 && $undelivered == 0 && $cursor == *":$inode:$size:"* ]]; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}
