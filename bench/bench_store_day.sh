#!/usr/bin/env bash
# Store benchmark (issue 15): 24 h of the 200k-port telemetry lab at a 60 s interval on a
# simulated clock ending now, written through the real Store API by ibw-bench-store_day
# (bench/store_day.cpp: one batch per scrape with every port's sample and port record and the
# counter events, UFM flap events, hourly compaction with the default retention). Then:
#  - the store's size on disk (database + WAL), against the goal of 4 GiB;
#  - `ibwarden events --config X --since 1h --format json` on that store, best of 5, against
#    the goal of 200 ms; for scale, the stock `sqlite3` shell counting the same events.
# Goals: <= 4 GiB; events --since 1h <= 200 ms. Also printed: write throughput (samples/s),
# write time per scrape, compaction time, and the bench's own run time.
# Usage: bench/bench_store_day.sh [--quick]   (--quick: 20,000 ports for 3 hours)
# PORTS=N HOURS=H override the size; DATA=1 adds the IBA data counters (MAD poller).
# STORE_DB=FILE keeps the store at FILE (and the writer's report at FILE.json) instead of a temp
# dir; when both exist already the day is not written again and only the figures are taken
# (the full day takes about half an hour: it can be written ahead, e.g. while the machine is
# busy, and the query timed on a quiet one).
source "$(dirname "$0")/lib.sh"
ports=${PORTS:-200000}
hours=${HOURS:-24}
if [[ ${1:-} == --quick ]]; then
  ports=${PORTS:-20000}
  hours=${HOURS:-3}
fi
bench_tool store_day ibwarden
ibwarden=$build/cli/ibwarden
work=$(mktemp -d "${TMPDIR:-/tmp}/ibwarden-bench-store.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GLIBC_TUNABLES=$(daemon_malloc_tunables)  # as `ibwarden run` allocates

db=${STORE_DB:-$work/store.db}
report=${STORE_DB:+$STORE_DB.json}
report=${report:-$work/day.json}
extra=()
[[ ${DATA:-0} == 1 ]] && extra+=(--data)
if [[ -n ${STORE_DB:-} && -s $db && -s $report ]]; then
  write_wall=$(sed -n 's/.*"bench_wall_s":\([0-9]*\).*/\1/p' "$report")
  echo "reusing the store written earlier: $db ($(date -r "$report" '+%F %T'))"
else
  rm -f "$db" "$db-wal" "$db-shm" "$report"
  t0=$EPOCHREALTIME
  "$bench" --db "$db" --ports "$ports" --hours "$hours" "${extra[@]}" >"$report.tmp" \
    2>"$work/day.log"
  write_wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.0f", b - a }')
  sed -E "s/\}\s*$/,\"bench_wall_s\":$write_wall}/" "$report.tmp" >"$report" && rm "$report.tmp"
fi
cat "$report"
json() { sed -E "s/.*\"$1\":([0-9.]+).*/\\1/" "$report"; }

bytes=0
for f in "$db" "$db-wal"; do
  [[ -f $f ]] && bytes=$((bytes + $(stat -c %s "$f")))
done
gib=$(awk -v b="$bytes" 'BEGIN{ printf "%.2f", b / 1073741824 }')
samples=$(json samples)
per_sample=$(awk -v b="$bytes" -v s="$samples" 'BEGIN{ printf "%.1f", b / s }')
echo "store on disk: $gib GiB ($bytes bytes, $per_sample bytes per sample; db + wal)"
sqlite3 "$db" "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8" \
  2>/dev/null | awk -F'|' '{ printf "  %-22s %8.1f MiB\n", $1, $2 / 1048576 }' || true

cat >"$work/ibwarden.yaml" <<EOF
store:
  path: $db
rules:
  file: null
EOF
# The last hour of the simulated day (which ends when the writer started): an absolute
# --since, so that a store written earlier (STORE_DB) is asked the same question.
end_us=$(json end_us)
since_us=$((end_us - 3600 * 1000000))
since=$(date -u -d "@$((since_us / 1000000))" +%Y-%m-%dT%H:%M:%SZ)
best_of 5 ours "$ibwarden" events --config "$work/ibwarden.yaml" --since "$since" --format json
shown=$("$ibwarden" events --config "$work/ibwarden.yaml" --since "$since" --format json |
  grep -c '"kind"' || true)
best_of 5 stock sqlite3 "$db" "SELECT count(*) FROM events WHERE time_us >= $since_us"
# CPU of one run (user + sys): on a busy shared machine the wall time above is mostly waiting.
/usr/bin/time -f '%U %S' -o "$work/cpu" "$ibwarden" events --config "$work/ibwarden.yaml" \
  --since "$since" --format json >/dev/null
cpu_ms=$(awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$work/cpu")
ours_ms=$(awk -v t="${ours% *}" 'BEGIN{ printf "%.0f", t * 1000 }')
stock_ms=$(awk -v t="${stock% *}" 'BEGIN{ printf "%.0f", t * 1000 }')
echo "events --since 1h: $ours_ms ms wall ($cpu_ms ms CPU) for $shown events" \
  "(peak RSS $(mib ${ours#* }));" \
  "sqlite3 count(*) of the same: $stock_ms ms"
echo "write: $(json samples_per_s) samples/s; per scrape median $(json write_median_s) s," \
  "max $(json write_max_s) s; compaction $(json compact_s) s in all; bench run ${write_wall} s"

scale="$ports ports x $hours h"
bench_result "store after 24 h of the 200k-port lab at 60 s, on disk" "$gib GiB ($scale)" \
  "goal <= 4 GiB" "$(awk -v g="$gib" 'BEGIN{ printf "%.0f%% of goal", g / 4 * 100 }')" \
  "$(met le "$bytes" 4294967296)"
bench_result "events --since 1h on that store" "$ours_ms ms ($scale)" "goal <= 200 ms" \
  "$(awk -v m="$ours_ms" 'BEGIN{ printf "%.0f%% of goal", m / 200 * 100 }')" \
  "$(met le "$ours_ms" 200)"
