#!/usr/bin/env bash
# The dashboard at 3,072 ports: scripts/demo.sh --large (1,072 ibsim nodes, ibwarden run with
# the web section), then bench/dashboard_timing.mjs times it in headless Chromium (median of
# 5): overview, full port grid, a filter redraw, the link page with its chart. Also reports
# the size of one full /api/v1/ports page as fetched by the grid.
# Usage: bench/bench_dashboard.sh   (BUILD_DIR as for the other benchmarks)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh >/dev/null
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh >/dev/null
build=$root/${BUILD_DIR:-build}
work=$(mktemp -d /tmp/ibwarden-bench-dash.XXXXXX)
demo=""
cleanup() {
  set +e  # a killed child's status (143) must not end the cleanup half-way under set -e
  [[ -n $demo ]] && kill "$demo" 2>/dev/null && wait "$demo" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
IBW_BIN=$build/cli/ibwarden IBW_LABGEN=$build/tests/lab/ibw-labgen \
  scripts/demo.sh --no-build --large --port 0 --faults off --duration 900 \
  --ready-file "$work/ready" >"$work/demo.log" 2>&1 &
demo=$!
for _ in $(seq 1 1800); do
  [[ -f $work/ready ]] && break
  kill -0 "$demo" 2>/dev/null || { cat "$work/demo.log" >&2; exit 1; }
  sleep 0.1
done
[[ -f $work/ready ]] || { cat "$work/demo.log" >&2; exit 1; }
declare -A cfg
while IFS='=' read -r key value; do cfg[$key]=$value; done <"$work/ready"
sleep 5  # a couple of counter sweeps, so that rates exist
bytes=$(curl -s -H "Authorization: Bearer ${cfg[viewer]}" "${cfg[url]}api/v1/ports?limit=5000" | wc -c)
json=$(PLAYWRIGHT_CORE=$root/tests/e2e/node_modules/playwright-core/index.mjs \
  IBW_URL=${cfg[url]} IBW_VIEWER=${cfg[viewer]} node bench/dashboard_timing.mjs)
python3 - "$json" "$bytes" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"| dashboard, {r['ports']:,} ports (median of 5) | ms |")
print("|---|---|")
for k, label in [("overview_ms", "overview: fabric numbers shown"),
                 ("grid_ms", f"port grid: all {r['cells']:,} cells drawn"),
                 ("filter_ms", "grid redraw after a filter"),
                 ("link_ms", "link page: chart drawn")]:
    print(f"| {label} | {r[k]} |")
print(f"\nJS heap after the runs: {r['js_heap_mib']} MiB; one /api/v1/ports?limit=5000 page: "
      f"{int(sys.argv[2]) / 1048576:.1f} MiB of JSON")
PY
