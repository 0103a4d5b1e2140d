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
# figure of each kept. Then one more PostgreSQL run on a database that tracks its statements
# (pg_stat_statements) prints the server's own execution time per batch and per sweep next to
# the time the client measured: the share no client-side change can take away.
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
# pg_stat_statements is loaded but tracks nothing (track=none) except in the profile run below.
start_private_pg "$work/pg" --durable -c shared_buffers=1GB \
  -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=none >/dev/null
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

# Where PostgreSQL's time goes: one more run on a database whose sessions track their
# statements (pg_stat_statements, execution time inside the server), against the batch and
# sweep times the run measured at the client. What is left is the client's work, the round
# trips, parameter input (Bind) and commit.
url=$(create_db bench_profile)
pg_psql bench_profile -c "CREATE EXTENSION pg_stat_statements" \
  -c "ALTER DATABASE bench_profile SET pg_stat_statements.track = 'top'"
"$bench" --url "$url" "${size[@]}" >"$work/profile.json"
server_ms() {  # server_ms REGEX: execution ms per call, summed over the matching statements
  pg_psql bench_profile -At -c "SELECT coalesce(sum(total_exec_time / calls), 0)
    FROM pg_stat_statements WHERE calls > 0
      AND dbid = (SELECT oid FROM pg_database WHERE datname = 'bench_profile')
      AND query ~ '$1'" | awk '{ printf "%.2f", $1 }'
}
ev_server=$(server_ms '^INSERT INTO (events|cursors) ')
sweep_server=$(server_ms '^(INSERT INTO sample_chunks|INSERT INTO port_state|SELECT part, data FROM port_state|UPDATE port_state|INSERT INTO cursors) ')
ev_client=$(median "$work/profile.json" event_batch_median_ms)
sw_client=$(median "$work/profile.json" sweep_median_ms)
awk -v es="$ev_server" -v ec="$ev_client" -v ss="$sweep_server" -v sc="$sw_client" 'BEGIN {
  printf "postgres server execution per write (pg_stat_statements, one more run), of the\n"
  printf "median write time at the client:\n"
  printf "  1,000-event batch (events, cursor)            %6.2f of %6.2f ms (%.0f%%)\n",
    es, ec, 100 * es / ec
  printf "  sweep (samples, port states, cursor)          %6.2f of %6.2f ms (%.0f%%)\n",
    ss, sc, 100 * ss / sc
}'

bench_result "store events/s (postgres vs sqlite, 1,000 per batch)" "$ev_pg/s" \
  "sqlite $ev_sqlite/s; goal >= 0.5x" "${ev_ratio}x" "$(met ge "$ev_ratio" 0.5)"
bench_result "store counter samples/s (postgres vs sqlite, $ports-port sweeps)" "$sa_pg/s" \
  "sqlite $sa_sqlite/s; goal >= 0.5x" "${sa_ratio}x" "$(met ge "$sa_ratio" 0.5)"
