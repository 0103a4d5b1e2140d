#!/usr/bin/env bash
# Rule evaluation benchmark (issue 15): the daemon's rule path for one counter sweep of 100,000
# linked ports with config/rules.yaml (bench/rules_eval.cpp): the sweep's History::add_delta
# calls, then prune, windows and evaluate, in four fabrics (clean, 1% failing, every port with
# errors below every threshold, every port failing). ibw-bench-rules_eval reports the median
# of its runs per case; this script runs it $RUNS times (default 3) and keeps, per case, the
# median of those medians. Goals: <= 5 / 10 / 50 / 50 ms per sweep. No stock tool does this,
# so the reference is the goal.
# Usage: bench/bench_rules.sh [--quick]   (--quick: one process run of 3 sweeps per case)
source "$(dirname "$0")/lib.sh"
runs=${RUNS:-3} sweeps=7 ports=100000
((quick)) && runs=1 sweeps=3
bench_build ibw-bench-rules_eval
bench_workdir rules
export GLIBC_TUNABLES=$(daemon_malloc_tunables)  # as `ibwarden run` allocates

rss=0
for ((r = 0; r < runs; r++)); do
  /usr/bin/time -f '%M' -o "$work/time" "$build/bench/ibw-bench-rules_eval" $ports $sweeps \
    >"$work/run$r"
  m=$(tail -1 "$work/time")
  ((m > rss)) && rss=$m
  grep -v '^CASE' "$work/run$r"
done
echo "peak RSS of one run: $(mib "$rss")"

# case NAME GOAL_MS: the median over runs of the case's per-sweep median, as a RESULT line.
case_result() {
  local name=$1 goal=$2 ms
  ms=$(awk -F'\t' -v n="$name" '$1 == "CASE" && $2 == n { print $3 }' "$work"/run* | sort -n |
    awk '{ t[NR] = $1 } END { if (NR) printf "%.1f", t[int((NR + 1) / 2)] }')
  if [[ -z $ms ]]; then
    bench_result "rules, 100k ports, $name" "failed" "goal <= $goal ms" "-" 0
    return
  fi
  bench_result "rules, 100k ports, $name" "$ms ms" "goal <= $goal ms" \
    "$(awk -v a="$ms" -v b="$goal" 'BEGIN{ printf "%.0f%% of goal", 100 * a / b }')" \
    "$(met le "$ms" "$goal")"
}
case_result "clean" 5
case_result "1% failing" 10
case_result "all below threshold" 50
case_result "all failing" 50
