# The start the tests/e2e/run*.sh scripts share; source it first, with the script's arguments:
#   source "$(dirname "$0")/lib.sh" "$@"     # BUILD_DIR OUT_DIR (ctest passes both)
# Strict mode; $me (the script's name), $here (tests/e2e), $root, $build (BUILD_DIR, absolute)
# and $out (OUT_DIR, created). Exits 1 unless Chromium, node and playwright-core are there
# (scripts/install-deps.sh installs them). $work is a new temp dir, removed at exit after the
# background process $bg (the lab or demo, once the script sets it) is stopped and the
# script's e2e_cleanup function (when it defines one) has run.
#   e2e_wait_ready TENTHS            0 once $work/ready exists, 1 when $bg ended first (bg is
#                                    then cleared), 2 after TENTHS tenths of a second
#   e2e_need_ready TENTHS WHAT LOG   the same, or exit 1 saying that WHAT failed or did not
#                                    come up, with LOG
#   e2e_demo FAULTS LOG              starts scripts/demo.sh --faults FAULTS on a free port as
#                                    $bg (output in LOG), waits for its dashboard and reads its
#                                    ready file into the array cfg (url, operator, console, lab)
set -euo pipefail
me=$(basename "$0")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
for need in /usr/bin/chromium node; do
  command -v "$need" >/dev/null || { echo "$me: $need is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
[[ -d $here/node_modules/playwright-core ]] ||
  { echo "$me: playwright-core is missing: (cd tests/e2e && npm ci)" >&2; exit 1; }
work=$(mktemp -d "/tmp/ibw-e2e-${me%.sh}.XXXXXX")
bg=""
e2e_exit() {
  if [[ -n $bg ]]; then kill "$bg" 2>/dev/null || true; wait "$bg" 2>/dev/null || true; fi
  if declare -F e2e_cleanup >/dev/null; then e2e_cleanup; fi
  rm -rf "$work"
}
trap e2e_exit EXIT

e2e_wait_ready() {
  local _
  for _ in $(seq 1 "$1"); do
    [[ -f $work/ready ]] && return 0
    kill -0 "$bg" 2>/dev/null || { wait "$bg" 2>/dev/null || true; bg=""; return 1; }
    sleep 0.1
  done
  return 2
}

e2e_need_ready() {
  local rc=0
  e2e_wait_ready "$1" || rc=$?
  ((rc == 0)) && return 0
  if ((rc == 1)); then
    echo "$me: $2 failed:" >&2
  else
    echo "$me: $2 did not come up in $(($1 / 10)) s" >&2
  fi
  cat "$3" >&2
  exit 1
}

declare -A cfg
e2e_demo() {
  IBW_BIN=$build/cli/ibwarden IBW_LABGEN=$build/tests/lab/ibw-labgen \
    "$root/scripts/demo.sh" --no-build --port 0 --faults "$1" --duration 600 \
    --ready-file "$work/ready" >"$2" 2>&1 &
  bg=$!
  e2e_need_ready 1200 "the demo" "$2"
  local key value
  while IFS='=' read -r key value; do cfg[$key]=$value; done <"$work/ready"
}
