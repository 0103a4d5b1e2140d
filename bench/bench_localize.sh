#!/usr/bin/env bash
# Localizer benchmark: the audit bench's 3-tier k=64 fat tree (65,536 endpoints, 5,120
# switches; ibw-labgen --ibnetdiscover), 1,000,000 adaptive-routing observations between random
# hosts (bench/localize_gen.cpp: 100 probes each, background noise 1e-5 per link crossing) with
# two cursed links: a spine -> leaf downlink losing 30% and a core -> spine downlink losing 20%
# of what they carry. `ibwarden localize --format json`: wall time and peak RSS against the
# goal (<= 2 s, <= 1 GiB), whether each cursed link is in a suspect group (and the group's
# size: AR-sprayed end-to-end data narrows a link only to the links no observation tells
# apart), and the same observations without faults (noise only) giving no suspects. No stock
# tool localizes from end-to-end data; the reference row is a plain read of the file (wc -l).
# Usage: bench/bench_localize.sh [--quick]   (--quick: k=32, 200,000 observations)
source "$(dirname "$0")/lib.sh"
build_jobs=2 bench_build ibwarden ibw-labgen ibw-bench-localize_gen
bin=$build/cli/ibwarden
gen=$build/tests/lab/ibw-labgen
obsgen=$build/bench/ibw-bench-localize_gen
bench_workdir localize

k=64 count=1000000
((quick)) && k=32 count=200000
# Leaf 3's second uplink port (k/2 + 2) receives from spine 2; spine (k/2)*3+4's first uplink
# port (k/2 + 1) receives from a core: one fault in each tier of a 3-tier tree.
down="leaf0003/$((k / 2 + 2))"
core="spine$(printf '%04d' $((k / 2 * 3 + 4)))/$((k / 2 + 1))"
"$gen" --out "$work/fab" --tiers 3 --k $k --spare-ports 0 --no-net --ibnetdiscover --seed 1 >/dev/null
cat >"$work/ibwarden.yaml" <<YAML
fabric:
  discovery: $work/fab/topology.txt
  node_name_map: $work/fab/node-name-map
store:
  path: $work/ibwarden.db
YAML
"$obsgen" --topology "$work/fab/topology.txt" --count $count --out "$work/cursed.jsonl" \
  --seed 3 --noise 1e-5 --cursed "$down:0.3" --cursed "$core:0.2"
"$obsgen" --topology "$work/fab/topology.txt" --count $count --out "$work/clean.jsonl" \
  --seed 4 --noise 1e-5
hosts=$(grep -c '^Ca' "$work/fab/topology.txt")
switches=$(grep -c '^Switch' "$work/fab/topology.txt")
echo "## Localizer: k=$k fat tree ($hosts endpoints, $switches switches), $count adaptive observations"

# Median of 5: wall times on a shared 2-core VM vary by up to 2x between runs.
median_of 5 res "$bin" localize --config "$work/ibwarden.yaml" --probes "$work/cursed.jsonl" --format json
cp "$work/out" "$work/cursed.json"
median_of 5 clean "$bin" localize --config "$work/ibwarden.yaml" --probes "$work/clean.jsonl" --format json
cp "$work/out" "$work/clean.json"
best_of 3 wc wc -l "$work/cursed.jsonl"

verdict() {  # verdict WALL RSS_KB
  awk -v t="$1" -v m="$2" 'BEGIN{ print (t <= 2 && m <= 1048576) ? "✅" : "❌" }'
}
printf '%-52s %8s %10s %s\n' "command" "wall s" "peak RSS" "goal <= 2 s, <= 1 GiB (median of 5)"
printf '%-52s %8s %10s\n' "wc -l ($count lines, $(du -m "$work/cursed.jsonl" | cut -f1) MB)" ${wc% *} "$(mib ${wc#* })"
read -r res_t res_m res_lo res_hi <<<"$res"
read -r clean_t clean_m clean_lo clean_hi <<<"$clean"
printf '%-52s %8s %10s %s\n' "ibwarden localize, two cursed links" $res_t "$(mib $res_m)" \
  "$(verdict $res_t $res_m) (runs $res_lo-$res_hi s)"
printf '%-52s %8s %10s %s\n' "ibwarden localize, noise only" $clean_t "$(mib $clean_m)" \
  "$(verdict $clean_t $clean_m) (runs $clean_lo-$clean_hi s)"

named=1
python3 - "$work/cursed.json" "$work/clean.json" "$down" "$core" <<'PY' || named=0
import json, sys
cursed, clean = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ok = True
for want in sys.argv[3:5]:
    hit = [s for s in cursed["suspects"]
           if any(f'{l["to"]["node"]}/{l["to"]["port"]}' == want for l in s["links"])]
    if hit:
        s = hit[0]
        print(f'{"✅"} cursed link -> {want}: suspect #{s["rank"]}, one of {len(s["links"])} links, '
              f'loss {100 * s["loss"]:.1f}%, {s["bad_observations"]} bad / {s["good_observations"]} good observations')
    else:
        ok = False
        print(f'❌ cursed link -> {want}: not named')
extra = len(cursed["suspects"]) - 2
print(f'{"✅" if extra <= 0 else "❌"} other suspects with the faults: {max(extra, 0)}')
print(f'{"✅" if not clean["suspects"] else "❌"} suspects on the clean fabric: {len(clean["suspects"])}')
sys.exit(0 if ok and extra <= 0 and not clean["suspects"] else 1)
PY
within=$(awk -v t="$res_t" -v m="$res_m" 'BEGIN{ print (t <= 2 && m <= 1048576) ? 1 : 0 }')
bench_result "localize, $count observations, k=$k ($hosts endpoints)" \
  "$res_t s, $(mib $res_m)$( ((named)) || echo ', faults NOT named')" "goal <= 2 s, <= 1 GiB" \
  "$(awk -v t="$res_t" 'BEGIN{ printf "%.0f%% of goal", t / 2 * 100 }')" $((within && named))
