#!/usr/bin/env bash
# UFM event ingest benchmark: a 50,000-event backlog served by the UFM emulator
# (tests/ufm_emulator) for a 280-node fat tree. ibw-bench-ufm_ingest times one backlog poll as
# the daemon's UFM source runs it (HTTP fetch, parse, de-duplication, storm grouping,
# mapping), correlation and the store transaction, then a steady-state poll; next to it, the
# stock JSON readers on the very same answer: `python3 -c json.load` and `jq length` (parse
# only, nothing else). Best of 3 runs each; ratios, no assertions.
# Usage: bench/bench_ufm.sh [--quick]   (--quick: 5,000 events)
source "$(dirname "$0")/lib.sh"
events=50000
((quick)) && events=5000
bench_tool ufm_ingest
bench_workdir ufm

# ibwarden: best of 3 by its share (parse + ingest + correlate + store).
best="" best_share=""
for i in 1 2 3; do
  "$bench" --events "$events" --payload "$work/events.json" --dir "$work" >"$work/run$i"
  share=$(awk '/^parse_s/ { print $4 }' "$work/run$i")
  if [[ -z $best ]] || awk -v a="$share" -v b="$best_share" 'BEGIN{exit !(a<b)}'; then
    best=$i best_share=$share
  fi
done
parse=$(awk '/^parse_s/ { print $2 }' "$work/run$best")
grep -v '^parse_s' "$work/run$best"
echo

py='import json, sys; print(len(json.load(open(sys.argv[1]))))'
best_of 3 python python3 -c "$py" "$work/events.json"
printf '%-58s %8s %10s\n' "baseline (same answer)" "wall s" "peak RSS"
printf '%-58s %8s %10s\n' "python3 json.load + len" ${python% *} "$(mib ${python#* })"
if command -v jq >/dev/null; then
  best_of 3 jq jq length "$work/events.json"
  printf '%-58s %8s %10s\n' "jq length" ${jq% *} "$(mib ${jq#* })"
fi
echo
printf 'ibwarden parse alone:  %s of python json.load' "$(ratio "$parse" ${python% *})"
[[ -n ${jq:-} ]] && printf ', %s of jq length' "$(ratio "$parse" ${jq% *})"
echo
printf "ibwarden's share:      %s of python json.load" "$(ratio "$best_share" ${python% *})"
[[ -n ${jq:-} ]] && printf ', %s of jq length' "$(ratio "$best_share" ${jq% *})"
echo
