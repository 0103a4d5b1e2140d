#!/usr/bin/env bash
# Runs the dashboard's end-to-end test (dashboard.e2e.mjs) on the demo fabric: starts
# scripts/demo.sh --faults off on a free port, waits until its dashboard is up, then drives it
# in Debian's headless Chromium with playwright-core. Screenshots go to OUT_DIR.
# Usage: tests/e2e/run.sh BUILD_DIR OUT_DIR   (ctest passes both; scripts/install-deps.sh
# installs chromium and runs `npm ci` here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
rm -f "$out"/*.png
for need in /usr/bin/chromium node; do
  command -v "$need" >/dev/null || { echo "run.sh: $need is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
[[ -d $here/node_modules/playwright-core ]] ||
  { echo "run.sh: playwright-core is missing: (cd tests/e2e && npm ci)" >&2; exit 1; }

work=$(mktemp -d /tmp/ibw-e2e.XXXXXX)
demo=""
cleanup() {
  if [[ -n $demo ]]; then kill "$demo" 2>/dev/null || true; wait "$demo" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
IBW_BIN=$build/cli/ibwarden IBW_LABGEN=$build/tests/lab/ibw-labgen \
  "$root/scripts/demo.sh" --no-build --port 0 --faults off --duration 600 \
  --ready-file "$work/ready" >"$out/demo.log" 2>&1 &
demo=$!
for _ in $(seq 1 1200); do
  [[ -f $work/ready ]] && break
  kill -0 "$demo" 2>/dev/null || { echo "run.sh: the demo failed:" >&2; cat "$out/demo.log" >&2; exit 1; }
  sleep 0.1
done
[[ -f $work/ready ]] || { echo "run.sh: the demo did not come up in 120 s" >&2; cat "$out/demo.log" >&2; exit 1; }
declare -A cfg
while IFS='=' read -r key value; do cfg[$key]=$value; done <"$work/ready"
set +e
(cd "$here" && IBW_URL=${cfg[url]} IBW_OPERATOR=${cfg[operator]} IBW_CONSOLE=${cfg[console]} \
  IBW_E2E_OUT=$out node dashboard.e2e.mjs)
rc=$?
set -e
if ((rc != 0)); then
  echo "--- demo output" >&2; cat "$out/demo.log" >&2
  echo "--- daemon log (last 40 lines)" >&2; tail -40 "${cfg[lab]}/daemon.log" >&2 || true
fi
exit $rc
