#!/usr/bin/env bash
# Runs grid_large.e2e.mjs: the virtualized port grid on a large store, without ibsim.
# ibw-labgen writes a 3-tier fat tree (K, default 32: 8,192 endpoints, ~49,000 ports) and
# ibw-bench-web_lab (bench/web_lab.cpp) serves it through the daemon's web backend, API and
# server, with a viewer token; the test drives the dashboard in Debian's headless Chromium.
# Usage: tests/e2e/run_grid.sh BUILD_DIR OUT_DIR   (ctest passes both)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh" "$@"
"$build/tests/lab/ibw-labgen" --out "$work" --tiers 3 --k "${K:-32}" --spare-ports 0 --no-net \
  --ibnetdiscover >/dev/null
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
(umask 077 && echo "viewer $token" >"$work/tokens")
"$build/bench/ibw-bench-web_lab" --topology "$work/topology.txt" --plan "$work/plan.csv" \
  --dir "$work" --tokens "$work/tokens" --ready-file "$work/ready" >"$out/grid-lab.log" 2>&1 &
bg=$!
e2e_need_ready 1800 "the web lab" "$out/grid-lab.log"
port=$(sed -n 's/^port=//p' "$work/ready")
cd "$here"
IBW_URL=http://127.0.0.1:$port/ IBW_VIEWER=$token IBW_E2E_OUT=$out node grid_large.e2e.mjs
