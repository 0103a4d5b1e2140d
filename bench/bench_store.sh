#!/usr/bin/env bash
# Store write benchmark (issue 17): events/s and counter samples/s written through Store::write
# in the daemon's batches (bench/store_write.cpp: 1,000 events per batch with their cursor; a
# counter sweep of every port per batch: samples + port counter readings + cursor), on both
# backends side by side: SQLite (a file in a temp dir, WAL, synchronous=NORMAL as the daemon
# opens it) and PostgreSQL 15 (a private server started here by scripts/lib/pg.sh, on a Unix
# socket, fsync on with synchronous_commit=off: commits do not wait for the WAL flush, as
# SQLite's synchronous=NORMAL; shared_buffers=1GB as a server dedicated to ibwarden would have
# it instead of the built-in 128MB, which also sizes the WAL buffers (16MB rather than 4MB: with
# 4MB, a sweep's 8MB of WAL waited on the WAL writer's fsyncs, 0.2x SQLite instead of 0.75x).
# Each backend gets a fresh store per run; $RUNS (default 3) runs each, interleaved, the median
# figure of each kept.
# Goal: PostgreSQL within 2x of SQLite (postgres/sqlite >= 0.5) for events/s and samples/s.
# Usage: bench/bench_store.sh [--quick]   (--quick: 5 x 1,000 events, 5,000 ports x 3 sweeps)
# EVENT_BATCHES, PORTS, SWEEPS override the size.
source "$(dirname "$0")/lib.sh"
runs=${RUNS:-3}
event_batches=${EVENT_BATCHES:-20}
ports=${PORTS:-20000}
sweeps=${SWEEPS:-10}
if [[ ${1:-} == --quick ]]; then
  runs=${RUNS:-1}
  event_batches=${EVENT_BATCHES:-5}
  ports=${PORTS:-5000}
  sweeps=${SWEEPS:-3}
fi
bench_tool store_write
bench_workdir store
chmod 711 "$work"  # the server's user (postgres, when run as root) reaches $work/pg
source scripts/lib/pg.sh
at_exit 'stop_private_pg "$work/pg"'
start_private_pg "$work/pg" --durable -c shared_buffers=1GB >/dev/null
export GLIBC_TUNABLES=$(daemon_malloc_tunables)  # as `ibwarden run` allocates

size=(--event-batches "$event_batches" --events-per-batch 1000 --ports "$ports" --sweeps "$sweeps")
echo "store writes: $event_batches batches of 1000 events; $ports ports x $sweeps sweeps;" \
  "$runs run(s) per backend"
for ((r = 0; r < runs; r++)); do
  rm -f "$work"/w.db*
  "$bench" --db "$work/w.db" "${size[@]}" | tee -a "$work/sqlite.json"
  url=$(create_db "bench_$r")
  "$bench" --url "$url" "${size[@]}" | tee -a "$work/postgres.json"
done

# median FILE FIELD: the median of a numeric field over the JSON lines of FILE.
median() {
  sed -E "s/.*\"$2\":([0-9.]+).*/\\1/" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
ev_sqlite=$(median "$work/sqlite.json" events_per_s)
ev_pg=$(median "$work/postgres.json" events_per_s)
sa_sqlite=$(median "$work/sqlite.json" samples_per_s)
sa_pg=$(median "$work/postgres.json" samples_per_s)
sw_sqlite=$(median "$work/sqlite.json" sweep_median_ms)
sw_pg=$(median "$work/postgres.json" sweep_median_ms)
ev_ratio=$(awk -v a="$ev_pg" -v b="$ev_sqlite" 'BEGIN{ printf "%.2f", a / b }')
sa_ratio=$(awk -v a="$sa_pg" -v b="$sa_sqlite" 'BEGIN{ printf "%.2f", a / b }')
printf '\n%-28s %14s %14s %16s\n' "" sqlite postgres "postgres/sqlite"
printf '%-28s %14s %14s %16s\n' "events/s" "$ev_sqlite" "$ev_pg" "$ev_ratio"
printf '%-28s %14s %14s %16s\n' "counter samples/s" "$sa_sqlite" "$sa_pg" "$sa_ratio"
printf '%-28s %14s %14s\n' "ms per $ports-port sweep" "$sw_sqlite" "$sw_pg"

bench_result "store events/s (postgres vs sqlite, 1,000 per batch)" "$ev_pg/s" \
  "sqlite $ev_sqlite/s; goal >= 0.5x" "${ev_ratio}x" "$(met ge "$ev_ratio" 0.5)"
bench_result "store counter samples/s (postgres vs sqlite, $ports-port sweeps)" "$sa_pg/s" \
  "sqlite $sa_sqlite/s; goal >= 0.5x" "${sa_ratio}x" "$(met ge "$sa_ratio" 0.5)"
