# The UFM load lab (tests/lab/ibw-ufmlab): a generated fat tree served as UFM Telemetry and UFM
# REST, no ibsim. Source after scripts/lib/bench.sh; $work is the scratch directory.
#
#   ufmlab_start BIN DIR [ibw-ufmlab options...]   starts it, waits for its port; sets
#                                                  UFMLAB_PID, UFMLAB_URL (http://127.0.0.1:N)
#   ufmlab_config DIR INTERVAL [RULES]             prints an ibwarden config for the lab in DIR
#                                                  (telemetry CSV every INTERVAL, dry-run)
#   ufmlab_stop                                    stops it (safe under set -e)

ufmlab_start() {
  local bin=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  rm -f "$dir/port"
  "$bin" --out "$dir" --port-file "$dir/port" "$@" 2>"$dir/ufmlab.log" &
  UFMLAB_PID=$!
  local i
  for ((i = 0; i < 1200; i++)); do
    [[ -s $dir/port ]] && break
    kill -0 "$UFMLAB_PID" 2>/dev/null || { cat "$dir/ufmlab.log" >&2; return 1; }
    sleep 0.1
  done
  UFMLAB_URL=http://127.0.0.1:$(cat "$dir/port")
}

ufmlab_config() {
  local dir=$1 interval=$2 rules=${3:-null}
  touch "$dir/opensm.log"
  cat <<YAML
fabric:
  name: ufmlab
  plan: $dir/plan.csv
  discovery: $dir/topology.txt
  rediscover_interval: 24h
opensm:
  log: $dir/opensm.log
  dump_dir: $dir
counters:
  enabled: true
  interval: $interval
store:
  path: $dir/ibwarden.db
rules:
  file: $rules
actions:
  mode: dry-run
ufm:
  url: $UFMLAB_URL
  api: v1
  user_env: IBW_UFMLAB_USER
  password_env: IBW_UFMLAB_PASSWORD
  token_file: null
  poll_interval: 10s
  timezone: UTC
  telemetry:
    primary: $UFMLAB_URL/csv/metrics
log:
  level: info
YAML
}

ufmlab_stop() {
  if [[ -n ${UFMLAB_PID:-} ]]; then
    kill "$UFMLAB_PID" 2>/dev/null || true
    wait "$UFMLAB_PID" 2>/dev/null || true
    UFMLAB_PID=
  fi
}
