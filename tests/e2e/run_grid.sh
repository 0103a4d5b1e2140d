#!/usr/bin/env bash
# Runs grid_large.e2e.mjs: the virtualized port grid on a large store, without ibsim.
# ibw-labgen writes a 3-tier fat tree (K, default 32: 8,192 endpoints, ~49,000 ports) and
# ibw-bench-web_lab (bench/web_lab.cpp) serves it through the daemon's web backend, API and
# server, with a viewer token; the test drives the dashboard in Debian's headless Chromium.
# Usage: tests/e2e/run_grid.sh BUILD_DIR OUT_DIR   (ctest passes both)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
for need in /usr/bin/chromium node; do
  command -v "$need" >/dev/null || { echo "run_grid.sh: $need is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
[[ -d $here/node_modules/playwright-core ]] ||
  { echo "run_grid.sh: playwright-core is missing: (cd tests/e2e && npm ci)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibw-e2e-grid.XXXXXX)
lab=""
cleanup() {
  if [[ -n $lab ]]; then kill "$lab" 2>/dev/null || true; wait "$lab" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
"$build/tests/lab/ibw-labgen" --out "$work" --tiers 3 --k "${K:-32}" --spare-ports 0 --no-net \
  --ibnetdiscover >/dev/null
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
(umask 077 && echo "viewer $token" >"$work/tokens")
"$build/bench/ibw-bench-web_lab" --topology "$work/topology.txt" --plan "$work/plan.csv" \
  --dir "$work" --tokens "$work/tokens" --ready-file "$work/ready" >"$out/grid-lab.log" 2>&1 &
lab=$!
for _ in $(seq 1 1800); do
  [[ -f $work/ready ]] && break
  kill -0 "$lab" 2>/dev/null || { echo "run_grid.sh: the web lab failed:" >&2; cat "$out/grid-lab.log" >&2; exit 1; }
  sleep 0.1
done
[[ -f $work/ready ]] || { echo "run_grid.sh: the web lab did not come up in 180 s" >&2; exit 1; }
port=$(sed -n 's/^port=//p' "$work/ready")
cd "$here"
IBW_URL=http://127.0.0.1:$port/ IBW_VIEWER=$token IBW_E2E_OUT=$out node grid_large.e2e.mjs
