#!/usr/bin/env bash
# The manual's pictures of the dashboard (docs/img/*.png, shown by README.md and docs/web.md):
# starts the demo fabric WITH its fault schedule (scripts/demo.sh: a disabled uplink and its
# work order, a host flap the guard refuses, a cursed link the probes find), waits until the
# cursed_path rule has disabled that link, then saves the overview, the port grid, a work
# order and the Routes page at 1280x800 (screenshots.mjs). Run by hand after a dashboard
# change, not in CI (it takes about 3 minutes):
#   tests/e2e/screenshots.sh build docs/img
# Usage: tests/e2e/screenshots.sh BUILD_DIR OUT_DIR
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh" "$@"
out=$(cd "$out" && pwd)  # screenshots.mjs runs in tests/e2e
e2e_demo on "$work/demo.log"
cd "$here"
IBW_URL=${cfg[url]} IBW_OPERATOR=${cfg[operator]} IBW_E2E_OUT=$out node screenshots.mjs ||
  { rc=$?; echo "--- demo output" >&2; cat "$work/demo.log" >&2; exit $rc; }
