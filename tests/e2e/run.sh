#!/usr/bin/env bash
# Runs the dashboard's end-to-end test (dashboard.e2e.mjs) on the demo fabric: starts
# scripts/demo.sh --faults off on a free port, waits until its dashboard is up, then drives it
# in Debian's headless Chromium with playwright-core. Screenshots go to OUT_DIR.
# Usage: tests/e2e/run.sh BUILD_DIR OUT_DIR   (ctest passes both; scripts/install-deps.sh
# installs chromium and runs `npm ci` here)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh" "$@"
rm -f "$out"/*.png

e2e_demo off "$out/demo.log"
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
