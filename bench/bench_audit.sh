#!/usr/bin/env bash
# Audit benchmark (issue 2). Two parts, each next to the stock tool it replaces:
#  1. 65,536-endpoint 3-tier fat tree (k=64: 5,120 switches, 196,608 cables) in ibnetdiscover
#     format + plan: `ibwarden audit` wall time and peak RSS vs a plain read (`wc -l`).
#     Goals (issue 15): <= 1 s and <= 512 MiB for each of the CSV, NDT and YAML plans; one
#     RESULT line each (scripts/lib/bench.sh). The audit JSON with plan.yaml is compared
#     with plan.csv's (same cables, so the same report).
#  2. ibsim scale (1,024 hosts, 48 switches on ibsim + OpenSM): `ibnetdiscover` itself vs
#     `ibwarden audit --live` (discovery + audit) and `ibwarden audit --topology`.
# Usage: bench/bench_audit.sh [--quick]   (--quick: k=32 and a smaller ibsim fabric)
source "$(dirname "$0")/lib.sh"
BUILD_DIR=$BUILD_DIR scripts/build.sh >/dev/null
bin=$build/cli/ibwarden
gen=$build/tests/lab/ibw-labgen
bench_sim_workdir audit

k=64 size="65k endpoints"
((quick)) && k=32 size="8k endpoints (--quick)"
echo "## 1. Audit of a 3-tier k=$k fat tree from ibnetdiscover text"
"$gen" --out "$work/big" --tiers 3 --k $k --spare-ports 0 --no-net --ibnetdiscover \
  --swap 4 --drop 4 --degrade 4 --seed 1
lines=$(wc -l <"$work/big/topology.txt")
size_mb=$(du -m "$work/big/topology.txt" | cut -f1)
best_of 5 wc wc -l "$work/big/topology.txt"
printf '%-46s %8s %10s\n' "command" "wall s" "peak RSS"
printf '%-46s %8s %10s\n' "wc -l topology.txt ($lines lines, ${size_mb} MB)" ${wc% *} "$(mib ${wc#* })"
within_goal() { le "$1" 1 && le "$2" $((512 * 1024)); }  # wall s, peak RSS KB
results=()
for plan in csv ndt yaml; do
  best_of 3 res "$bin" audit --plan "$work/big/plan.$plan" --topology "$work/big/topology.txt" \
    --format json --output /dev/null
  secs=${res% *} rss=$(mib ${res#* })
  printf '%-46s %8s %10s   (%s of wc -l)\n' "ibwarden audit --plan plan.$plan" "$secs" "$rss" \
    "$(ratio "$secs" ${wc% *})"
  results+=("$(bench_result "audit $size, ${plan^^} plan" "$secs s, $rss" \
    "goal <= 1 s, <= 512 MiB" "$(ratio "$secs" ${wc% *}) of wc -l" \
    "$(met within_goal "$secs" ${res#* })")")
done
# The same fabric audited against the same cables in CSV and YAML must give the same report.
for plan in csv yaml; do
  "$bin" audit --plan "$work/big/plan.$plan" --topology "$work/big/topology.txt" --format json \
    --output "$work/big/audit-$plan.json" >/dev/null 2>&1 || true
done
if cmp -s "$work/big/audit-csv.json" "$work/big/audit-yaml.json"; then
  echo "audit JSON with plan.yaml = with plan.csv ($(wc -c <"$work/big/audit-csv.json") bytes)"
else
  echo "audit JSON with plan.yaml differs from plan.csv:"
  diff "$work/big/audit-csv.json" "$work/big/audit-yaml.json" | head -5 || true
fi
"$bin" audit --plan "$work/big/plan.csv" --topology "$work/big/topology.txt" | head -2 || true
printf '%s\n' "${results[@]}"

leaves=32 spines=16 hosts=32
((quick)) && leaves=8 spines=4 hosts=8
echo
echo "## 2. ibsim scale: $leaves leaves x $hosts hosts, $spines spines, on ibsim + OpenSM"
"$gen" --out "$work/sim" --leaves $leaves --spines $spines --hosts-per-leaf $hosts --swap 2 --drop 2 --seed 1
sim_start "$work/sim/net" "$work/sim/lab" 300
cd "$SIM_DIR"  # umad2sim keeps its fake sysfs in the working directory
on_sim=(env IBSIM_SOCKNAME="$SIM_SOCK" LD_PRELOAD="$SIM_PRELOAD")
"${on_sim[@]}" ibnetdiscover >"$work/sim/topology.txt" 2>/dev/null
[[ $(grep -c '^Switch' "$work/sim/topology.txt") -gt 0 ]] || { echo "ibnetdiscover found nothing" >&2; exit 1; }
best_of 3 disc "${on_sim[@]}" ibnetdiscover
best_of 3 live "${on_sim[@]}" "$bin" audit --plan "$work/sim/plan.csv" --live --format json --output /dev/null
best_of 3 file "$bin" audit --plan "$work/sim/plan.csv" --topology "$work/sim/topology.txt" \
  --format json --output /dev/null
printf '%-46s %8s %10s\n' "command" "wall s" "peak RSS"
printf '%-46s %8s %10s\n' "ibnetdiscover (stock, live)" ${disc% *} "$(mib ${disc#* })"
printf '%-46s %8s %10s   (%s of ibnetdiscover)\n' "ibwarden audit --live (discovery + audit)" \
  ${live% *} "$(mib ${live#* })" "$(ratio ${live% *} ${disc% *})"
printf '%-46s %8s %10s\n' "ibwarden audit --topology (file)" ${file% *} "$(mib ${file#* })"
"${on_sim[@]}" "$bin" audit --plan "$work/sim/plan.csv" --live 2>/dev/null | head -2 || true
cd "$root"
