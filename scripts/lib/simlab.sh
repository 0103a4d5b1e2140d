# Shell helpers to run a real IB control plane: ibsim + OpenSM under umad2sim.
# Source this file; call sim_start NETFILE DIR, then sim_run CMD..., then sim_stop.
# Used by the demo and the benchmarks (the C++ tests use tests/lab/sim_lab.h).

SIM_PRELOAD=${SIM_PRELOAD:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

# sim_start NETFILE DIR [TIMEOUT_S]: starts ibsim and OpenSM, waits for SUBNET UP.
sim_start() {
  local net=$1 dir=$2 timeout=${3:-120}
  SIM_DIR=$dir
  SIM_SOCK="ibw-sh-$$${SIM_TAG:-}"  # SIM_TAG: a second fabric of the same script
  mkdir -p "$dir"
  # ibsim reads console commands on stdin and spins on EOF: hold a FIFO open for it.
  rm -f "$dir/console"
  mkfifo "$dir/console"
  local nodes switches ports
  nodes=$(grep -cE '^(Switch|Hca)' "$net")
  switches=$(grep -c '^Switch' "$net")
  ports=$(awk '/^(Switch|Hca)/ {s += $2 + 1} END {print s + 64}' "$net")
  (cd "$dir" && IBSIM_SOCKNAME=$SIM_SOCK exec ibsim -s -N $((nodes + 16 > 2048 ? nodes + 16 : 2048)) \
      -S $((switches + 8 > 256 ? switches + 8 : 256)) -P $((ports > 13312 ? ports : 13312)) \
      "$net" <"$dir/console" >"$dir/ibsim.log" 2>&1) &
  SIM_IBSIM_PID=$!
  exec {SIM_CONSOLE_FD}>"$dir/console"
  local t0=$SECONDS
  until grep -q "Network simulator ready" "$dir/ibsim.log" 2>/dev/null; do
    if ! kill -0 "$SIM_IBSIM_PID" 2>/dev/null || ((SECONDS - t0 > timeout)); then
      echo "ibsim failed to start:" >&2; tail -20 "$dir/ibsim.log" >&2; return 1
    fi
    sleep 0.1
  done
  (cd "$dir" && IBSIM_SOCKNAME=$SIM_SOCK LD_PRELOAD=$SIM_PRELOAD OSM_CACHE_DIR=$dir \
      exec opensm -f "$dir/opensm.log" -d2 -R ftree,updn,minhop --dump_files_dir "$dir" \
      >"$dir/opensm.out" 2>&1) &
  SIM_OPENSM_PID=$!
  until grep -q "SUBNET UP" "$dir/opensm.log" 2>/dev/null; do
    if ! kill -0 "$SIM_OPENSM_PID" 2>/dev/null || ((SECONDS - t0 > timeout)); then
      echo "OpenSM did not reach SUBNET UP:" >&2; tail -20 "$dir/opensm.log" >&2; return 1
    fi
    sleep 0.1
  done
}

# sim_console CMD: one ibsim console command, e.g. 'Unlink "leaf003"[17]'.
sim_console() { echo "$*" >&"$SIM_CONSOLE_FD"; }

# sim_run CMD...: runs a command attached to the simulated fabric (in SIM_DIR).
sim_run() {
  (cd "$SIM_DIR" && IBSIM_SOCKNAME=$SIM_SOCK LD_PRELOAD=$SIM_PRELOAD "$@")
}

# sim_config_base DIR INTERVAL [NAME]: the fabric, opensm, counters and store sections every
# lab config shares, for the layout sim_start DIR/sim gives (plan DIR/plan.csv, store
# DIR/ibwarden.db). Callers append their own sections.
sim_config_base() {
  local dir=$1 interval=$2 name=${3:-}
  echo "fabric:"
  if [[ -n $name ]]; then echo "  name: $name"; fi
  cat <<YAML
  plan: $dir/plan.csv
opensm:
  log: $dir/sim/opensm.log
  poll: 100ms
  rediscover_delay: 200ms
counters:
  interval: $interval
store:
  path: $dir/ibwarden.db
YAML
}

# sim_daemon BIN CONFIG LOG [PREFIX...]: starts `PREFIX BIN run --config CONFIG` on the
# simulated fabric in the background, stderr to LOG. SIM_DAEMON_PID is the daemon itself
# (a child of the caller's shell, so it can be waited for).
sim_daemon() {
  local bin=$1 config=$2 log=$3
  shift 3
  (cd "$SIM_DIR" && IBSIM_SOCKNAME=$SIM_SOCK LD_PRELOAD=$SIM_PRELOAD exec "$@" "$bin" run \
    --config "$config" 2>"$log") &
  SIM_DAEMON_PID=$!
}

# sim_daemon_stop: stops the daemon sim_daemon started, if it runs (safe under set -e).
sim_daemon_stop() {
  if [[ -n ${SIM_DAEMON_PID:-} ]]; then
    kill "$SIM_DAEMON_PID" 2>/dev/null && { wait "$SIM_DAEMON_PID" 2>/dev/null || true; }
  fi
  SIM_DAEMON_PID=
}

# Stops the daemon (sim_daemon_stop), OpenSM and ibsim. Safe under set -e: a killed
# process's status (143) does not end the caller.
sim_stop() {
  sim_daemon_stop
  [[ -n ${SIM_OPENSM_PID:-} ]] && kill "$SIM_OPENSM_PID" 2>/dev/null && { wait "$SIM_OPENSM_PID" 2>/dev/null || true; }
  [[ -n ${SIM_IBSIM_PID:-} ]] && { kill "$SIM_IBSIM_PID" 2>/dev/null || true; }
  [[ -n ${SIM_CONSOLE_FD:-} ]] && exec {SIM_CONSOLE_FD}>&-
  [[ -n ${SIM_IBSIM_PID:-} ]] && { wait "$SIM_IBSIM_PID" 2>/dev/null || true; }
  SIM_OPENSM_PID= SIM_IBSIM_PID= SIM_CONSOLE_FD=
  if [[ -n ${SIM_DIR:-} ]]; then rm -rf "$SIM_DIR"/sys-* 2>/dev/null || true; fi
}
