#!/usr/bin/env bash
# Route check benchmark (issue 30): `route check`'s analysis on the audit bench's 65,536-host
# 3-tier fat tree (k=64: 5,120 switches) with generated ftree-like LFTs, goal <= 5 s (the
# check_routes call) and <= 1 GiB (peak RSS of the whole process: model, LFTs and check).
# Note: 70,656 ports need more LIDs than the 49,151 unicast ones, so the generated
# topology's LIDs wrap and only the first 65,535 distinct LIDs are routed and checked. As text those LFTs would be ~10 GB of opensm-lfts.dump,
# so the big run is in process (bench/route_check.cpp); `ibwarden route check` end to end
# (ibnetdiscover file + dump parse + check) runs on k=16 and k=32.
# Beside it, a stand-in for ibdmchk (not packaged in Debian: `apt-cache policy ibdm` finds
# nothing here): every (CA, LID) pair traced with trace_path, the CDG as a hash set of edges
# and a recursive Tarjan, on the same LFTs where it finishes (k=16; k=64 would trace 4.4e9
# pairs).
# Also the hosts one link carries (`ibwarden jobs --link`, fabric/link_hosts.h) on the same
# fabric and LFTs, static and adaptive, goal <= 1 s per link; and the affected jobs of one link
# (issue 33: hosts over the LFTs -> Slurm nodes -> 10,000 synthetic running jobs), goal <= 1 s.
# Usage: bench/bench_route_check.sh [--quick]   (--quick: k=32 instead of 64)
source "$(dirname "$0")/lib.sh"
bench_tool route_check ibwarden
bin=$build/cli/ibwarden
bench_workdir route_check
k=64
((quick)) && k=32

echo "## ibdmchk: $(apt-cache policy ibdm ibutils 2>/dev/null | grep -c Candidate) packages found (stand-in below)"
echo "## 1. route check analysis, k=$k fat tree, generated LFTs (in process)"
best_of 1 big "$bench" $k check
cat "$work/out"
secs=$(sed -n 's/^check k=[0-9]*: \([0-9.]*\) s.*/\1/p' "$work/out") rss=$(mib ${big#* })
printf '%-50s %8s %10s\n' "ibw-bench-route_check $k check (whole process)" "${big% *}" "$rss"
printf '%-50s %8s\n' "  of which check_routes" "$secs"
within_goal() { le "$1" 5 && le "$2" $((1024 * 1024)); }
result=$(bench_result "route check $((k * k * k / 4)) hosts (generated LFTs)" "$secs s, $rss" \
  "goal <= 5 s, <= 1 GiB" "-" "$(met within_goal "$secs" ${big#* })")

echo
echo "## 2. ibwarden route check end to end (topology.txt + opensm-lfts.dump)"
for kk in 16 32; do
  mkdir -p "$work/k$kk"
  "$bench" $kk dump "$work/k$kk" 2>/dev/null
  cat >"$work/k$kk/ibwarden.yaml" <<YAML
fabric:
  discovery: $work/k$kk/topology.txt
opensm:
  log: $work/k$kk/opensm.log
  dump_dir: $work/k$kk
store:
  path: $work/k$kk/ibwarden.db
YAML
  best_of 1 cli "$bin" route check --config "$work/k$kk/ibwarden.yaml" --format json
  lines=$(wc -l <"$work/k$kk/opensm-lfts.dump")
  printf '%-50s %8s %10s  (%s dump lines)\n' "ibwarden route check, k=$kk ($((kk * kk * kk / 4)) hosts)" \
    ${cli% *} "$(mib ${cli#* })" "$lines"
  grep -E '"(engine|unreachable_pairs|sources|destinations)"' "$work/out" | tr -d ' \n'; echo
done

echo
echo "## 3. stand-in for ibdmchk on the same LFTs (k=16) vs the check"
best_of 1 sc "$bench" 16 standin
cat "$work/out"
printf '%-50s %8s %10s\n' "stand-in (trace every pair + Tarjan), k=16" ${sc% *} "$(mib ${sc#* })"
best_of 1 ck "$bench" 16 check
cat "$work/out"
printf '%-50s %8s %10s   (%s of the stand-in)\n' "ibw-bench-route_check 16 check" ${ck% *} \
  "$(mib ${ck#* })" "$(ratio ${ck% *} ${sc% *})"

echo
echo "## 4. hosts one link carries (ibwarden jobs --link, issue 33), k=$k, goal <= 1 s per link"
best_of 1 lk "$bench" $k link
cat "$work/out"
worst=$(grep -oE '(static|adaptive) [0-9.]+ s' "$work/out" | awk '$2 > m {m = $2} END {print m + 0}')
link_result=$(bench_result "hosts of one link, $((k * k * k / 4)) hosts" "$worst s (slowest)" \
  "goal <= 1 s" "-" "$(met le "$worst" 1)")

echo
echo "## 5. affected jobs of one link (10,000 running jobs), k=$k, goal <= 1 s per link"
best_of 1 jb "$bench" $k jobs
cat "$work/out"
worst_jobs=$(grep -oE ': [0-9.]+ s \(' "$work/out" | awk '$2 > m {m = $2} END {print m + 0}')
jobs_result=$(bench_result "affected jobs of one link, $((k * k * k / 4)) hosts, 10,000 jobs" \
  "$worst_jobs s (slowest)" "goal <= 1 s" "-" "$(met le "$worst_jobs" 1)")
echo "$result"
echo "$link_result"
echo "$jobs_result"
