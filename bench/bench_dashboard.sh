#!/usr/bin/env bash
# The dashboard's port grid at 200k ports (issue 15): ibw-bench-web_lab (bench/web_lab.cpp: the
# daemon's web backend, API and server over a store holding the 65,536-endpoint 3-tier fat
# tree of `ibw-labgen --tiers 3 --k 64`, see bench/bench_web.sh) serves the dashboard, and
# bench/dashboard_timing.mjs drives it in Debian's headless Chromium (playwright-core from
# tests/e2e), median of 5 runs:
#  - first paint: navigation start to the first frame with a row of port cells (goal <= 1 s);
#  - scroll jank: a scripted scroll (120 frames of 8 rows each, then 10 jumps to random
#    places), timed by requestAnimationFrame; jank-free means no frame over 50 ms (three
#    missed 60 Hz frames) and no long task (> 50 ms) during the scroll. Reported: the longest
#    frame of the median run, its 95th percentile frame and its long tasks;
#  - for context: a filter to one node, the overview page, the JS heap.
# Usage: bench/bench_dashboard.sh [--quick]   (--quick: k=16, ~3,000 ports; 3 runs)
# Environment: BUILD_DIR (default build), K (64), RUNS (5; 3 with --quick).
source "$(dirname "$0")/lib.sh"
bench_build_in_tree ibw-bench-web_lab ibw-labgen
[[ -d tests/e2e/node_modules/playwright-core && -x /usr/bin/chromium ]] || scripts/install-deps.sh >/dev/null
k=${K:-64} runs=${RUNS:-5}
((quick)) && k=${K:-16} && runs=${RUNS:-3}
bench_workdir dash
export GLIBC_TUNABLES=$(daemon_malloc_tunables)  # as `ibwarden run` allocates
lab=""
at_exit 'bench_kill "$lab"'

"$build/tests/lab/ibw-labgen" --out "$work" --tiers 3 --k "$k" --spare-ports 0 --no-net \
  --ibnetdiscover >/dev/null
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
(umask 077 && echo "viewer $token" >"$work/tokens")
"$build/bench/ibw-bench-web_lab" --topology "$work/topology.txt" --plan "$work/plan.csv" \
  --dir "$work" --tokens "$work/tokens" --sweep 60 --ready-file "$work/ready" >"$work/lab.log" 2>&1 &
lab=$!
t0=$SECONDS
until [[ -f $work/ready ]]; do
  kill -0 "$lab" 2>/dev/null || { cat "$work/lab.log" >&2; exit 1; }
  ((SECONDS - t0 < 600)) || { echo "the web lab did not come up in 600 s" >&2; exit 1; }
  sleep 0.2
done
port=$(sed -n 's/^port=//p' "$work/ready")
json=$(PLAYWRIGHT_CORE=$root/tests/e2e/node_modules/playwright-core/index.mjs RUNS=$runs \
  IBW_URL=http://127.0.0.1:$port/ IBW_VIEWER=$token node bench/dashboard_timing.mjs)
echo "$json" >"$work/timing.json"
python3 - "$json" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
s = r["scroll"]
print(f"| dashboard port grid, {r['ports']:,} ports (median of {r['runs']}) | |")
print("|---|---|")
print(f"| first paint (navigation to a row of cells) | {r['first_paint_ms']} ms (runs: {r['first_paint_all_ms']}) |")
print(f"| scripted scroll: frames / longest / p95 / over 50 ms | {s['frames']} / {s['longest_frame_ms']} ms / "
      f"{s['p95_frame_ms']} ms / {s['frames_over_50ms']} (worst run's longest: {r['scroll_worst_longest_frame_ms']} ms) |")
print(f"| long tasks during the scroll (longest) | {s['long_tasks']} ({s['longest_task_ms']} ms) |")
print(f"| filter to one node | {r['filter_ms']} ms |")
print(f"| overview page | {r['overview_ms']} ms |")
print(f"| JS heap after the runs | {r['js_heap_mib']} MiB |")
PY
read -r ports paint longest p95 tasks < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); s = r["scroll"]
print(r["ports"], r["first_paint_ms"], s["longest_frame_ms"], s["p95_frame_ms"], s["long_tasks"])' "$work/timing.json")
bench_result "dashboard port grid at $ports ports: first paint" "$paint ms" "goal <= 1000 ms" \
  "$(awk -v p="$paint" 'BEGIN{ printf "%.0f%% of goal", p / 10 }')" "$(met le "$paint" 1000)"
bench_result "dashboard port grid at $ports ports: scroll jank (longest frame, long tasks)" \
  "longest frame $longest ms (p95 $p95 ms), $tasks long tasks" \
  "goal: no frame > 50 ms, no long task" \
  "$(awk -v p="$longest" 'BEGIN{ printf "%.0f%% of goal", 100 * p / 50 }')" \
  "$(met eval "le $longest 50 && le $tasks 0")"
