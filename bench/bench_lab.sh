#!/usr/bin/env bash
# Daemon on the UFM telemetry load lab (issue 15): `ibwarden run` (dry-run, default rules)
# against ibw-ufmlab serving the 65,536-endpoint 3-tier fat tree (k=64: 5,120 switches,
# 196,608 links, 393,216 linked ports, every one a telemetry row of 21 counters) as UFM
# Telemetry CSV and UFM REST (events with flaps, ports, links). The topology comes from the
# lab's ibnetdiscover file (fabric.discovery). Counters move every scrape; error bursts and
# link flaps (UFM events 329/328) happen at the lab's default rates (2/min each).
# Goal row: RSS <= 2 GiB; one scrape ingested + evaluated + stored <= 1 s; CPU <= 25% of a core.
#  - peak RSS: the daemon's VmHWM at the end of the run;
#  - per scrape: the daemon's own log: "telemetry sweep" elapsed_ms (fetch + parse + ingest
#    + evaluate on the telemetry thread) + "counters stored" write_ms (the store write on the
#    main thread; it overlaps the evaluation, so the sum is an upper bound). The worst scrape
#    after the first (a baseline with no deltas) is the figure; every scrape is printed;
#  - CPU: utime+stime from /proc/PID/stat over the steady window (from the end of the first
#    scrape to the end of the run: whole intervals, start-up excluded), over its wall time.
#    With an interval shorter than 60 s the figure is scaled to 60 s (CPU per interval / 60 s):
#    the work is per scrape; the events poll (10 s) is counted at the shorter interval's rate,
#    which only overstates it.
# With --profile the daemon runs under heaptrack and the run ends with its heap at the peak by
# the ibwarden function that allocated it (the innermost ibw:: frame of each allocation's
# stack), then what grew: the heap by function 5 s after the store write of the second scrape
# and of the last one (ibw-bench-heap_growth). The run's figures are then heaptrack's (slower,
# more memory): no RESULT lines.
# With --store postgres the daemon's store is a private PostgreSQL 15 started here (as
# bench_store.sh starts it: Unix socket, fsync on, synchronous_commit=off, shared_buffers=1GB)
# instead of a SQLite file.
# Usage: bench/bench_lab.sh [--quick] [--duration S] [--interval S] [--k K] [--profile]
#                           [--store sqlite|postgres]
#   full (default): k=64, 60 s interval, 900 s; --quick: k=32 (49,152 ports), 15 s, 50 s.
#   900 s: the rules' longest window (symbol_ber, 12 minutes) fills in 12 scrapes, and the
#   history's memory with it; a 5-minute run missed a growth that broke the RSS goal.
source "$(dirname "$0")/lib.sh"
k=64 interval=60 duration=900 profile=0 store=sqlite
while (($#)); do
  case $1 in
    --quick) k=32 interval=15 duration=50 ;;
    --profile) profile=1 ;;
    --duration) duration=$2; shift ;;
    --interval) interval=$2; shift ;;
    --k) k=$2; shift ;;
    --store) store=$2; shift ;;
    *) echo "usage: $0 [--quick] [--duration S] [--interval S] [--k K] [--profile]" \
      "[--store sqlite|postgres]" >&2; exit 2 ;;
  esac
  shift
done
bench_build ibwarden ibw-ufmlab ibw-bench-heap_growth
bin=$build/cli/ibwarden
lab=$build/tests/lab/ibw-ufmlab
source scripts/lib/ufmlab.sh
bench_workdir lab
daemon_pid=
at_exit 'bench_kill "$daemon_pid"'
at_exit ufmlab_stop
[[ -n ${IBW_KEEP_LAB:-} ]] && keep_work=1 && at_exit 'echo "kept $work"'

ufmlab_start "$lab" "$work" --tiers 3 --k "$k" --duration $((duration + 600))
cat "$work/ufmlab.log"
cp config/rules.yaml "$work/rules.yaml"
ufmlab_config "$work" "${interval}s" "$work/rules.yaml" >"$work/ibwarden.yaml"
if [[ $store == postgres ]]; then
  chmod 711 "$work"  # the server's user (postgres, when run as root) reaches $work/pg
  source scripts/lib/pg.sh
  at_exit 'stop_private_pg "$work/pg"'  # after the daemon's bench_kill (registered first)
  start_private_pg "$work/pg" --durable -c shared_buffers=1GB >/dev/null
  url=$(create_db lab)
  awk -v url="$url" '/^  path: / { print "  backend: postgres"; print "  url: \"" url "\""; next }
    { print }' "$work/ibwarden.yaml" >"$work/ibwarden.yaml.pg"
  mv "$work/ibwarden.yaml.pg" "$work/ibwarden.yaml"
elif [[ $store != sqlite ]]; then
  echo "bench_lab: --store is sqlite or postgres" >&2; exit 2
fi
# Under heaptrack the daemon must not re-exec itself for its allocator settings (the new
# process would go untraced): they are given here, as the re-exec would set them.
wrap=()
((profile)) && wrap=(env GLIBC_TUNABLES="$(daemon_malloc_tunables)" IBW_MALLOC_TUNING=off
  heaptrack -o "$work/heap")
IBW_UFMLAB_USER=admin IBW_UFMLAB_PASSWORD=lab "${wrap[@]}" "$bin" run --config "$work/ibwarden.yaml" \
  2>"$work/daemon.log" >"$work/heaptrack.out" &
daemon_pid=$! wrapper=
if ((profile)); then  # heaptrack's script runs the daemon as a child: find the process itself
  wrapper=$daemon_pid daemon_pid=
  for ((i = 0; i < 100; i++)); do
    daemon_pid=$(pgrep -n -x ibwarden || true)
    [[ -n $daemon_pid ]] && ! grep -q "$work/ibwarden.yaml" "/proc/$daemon_pid/cmdline" && daemon_pid=
    [[ -n $daemon_pid ]] && break
    sleep 0.1
  done
  [[ -n $daemon_pid ]] || { echo "bench_lab: the daemon under heaptrack did not start" >&2; exit 1; }
fi
tick() { getconf CLK_TCK; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$daemon_pid/stat"; }
t_start=$EPOCHREALTIME
until grep -q '"telemetry sweep"' "$work/daemon.log" 2>/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { tail -5 "$work/daemon.log" >&2; exit 1; }
  sleep 0.2
done
startup=$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.1f", b - a }')
# VmRSS every 0.5 s, to place the peak among the daemon's "memory" lines (breakdown below).
(while kill -0 "$daemon_pid" 2>/dev/null; do
  echo "$EPOCHREALTIME $(awk '/VmRSS/ {print $2}' "/proc/$daemon_pid/status" 2>/dev/null)"
  sleep 0.5
done >"$work/rss") &
sampler_pid=$!
at_exit 'bench_kill "$sampler_pid"'
c0=$(cpu_ticks) w0=$EPOCHREALTIME
left=$(awk -v d="$duration" -v s="$startup" 'BEGIN{ x = d - s; print (x < 1 ? 1 : x) }')
sleep "$left"
c1=$(cpu_ticks) w1=$EPOCHREALTIME
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$daemon_pid/status")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$daemon_pid/status")
kill "$daemon_pid"
wait "${wrapper:-$daemon_pid}" 2>/dev/null || true
while kill -0 "$daemon_pid" 2>/dev/null; do sleep 0.2; done  # (not our child under heaptrack)
daemon_pid=

echo
echo "fabric: k=$k 3-tier fat tree; scrape interval ${interval} s; run ${duration} s; store $store" \
  "(daemon start-up to first scrape: ${startup} s)"
# Per scrape: telemetry thread + store write (nth "telemetry sweep" with nth "counters stored"),
# the goal's figure; and wall=, from the scrape's start (its line's time less elapsed_ms) to
# the later of its line and its "counters stored" line: the store write overlaps the
# evaluation, so the sum is an upper bound of the wall time.
python3 - "$work/daemon.log" >"$work/scrapes" <<'PY'
import datetime, json, sys
def when(j):
    return datetime.datetime.strptime(j["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000
sweeps, writes = [], []
for line in open(sys.argv[1]):
    try:
        j = json.loads(line[line.index("{"):])
    except ValueError:
        continue
    if j.get("msg") == "telemetry sweep":
        sweeps.append(j)
    elif j.get("msg") == "counters stored":
        writes.append(j)
for i, s in enumerate(sweeps):
    w = writes[i]["write_ms"] if i < len(writes) else float("nan")
    end = max(when(s), when(writes[i])) if i < len(writes) else float("nan")
    print("%.0f rows=%d fetch=%.0f parse=%.0f ingest=%.0f evaluate=%.0f store=%.0f wall=%.0f ms" % (
        s["elapsed_ms"] + w, s["rows"], s["fetch_ms"], s["parse_ms"], s["ingest_ms"],
        s["evaluate_ms"], w, end - (when(s) - s["elapsed_ms"])))
PY
nl -w2 -s'. ' "$work/scrapes"
worst=$(awk 'NR > 1 && $1 > w { w = $1 } END { printf "%.0f", w + 0 }' "$work/scrapes")
scrapes=$(wc -l <"$work/scrapes")
cpu=$(awk -v a="$c0" -v b="$c1" -v t0="$w0" -v t1="$w1" -v hz="$(tick)" -v iv="$interval" '
  BEGIN { wall = t1 - t0; used = (b - a) / hz; pct = 100 * used / wall
          if (iv < 60) pct = pct * iv / 60; printf "%.1f", pct }')
cpu_raw=$(awk -v a="$c0" -v b="$c1" -v t0="$w0" -v t1="$w1" -v hz="$(tick)" '
  BEGIN { printf "%.1f", 100 * (b - a) / hz / (t1 - t0) }')
grep -h '"level":"\(error\|warning\)"' "$work/daemon.log" | cut -c1-200 | sort | uniq -c | head -5 || true
echo "lab: $(tail -1 "$work/ufmlab.log")"
printf '%-40s %s\n' "daemon RSS peak / at end" "$((hwm / 1024)) MiB / $((rss / 1024)) MiB"
# Where RSS goes: the daemon logs a "memory" line (daemon/memory_stats.h: RSS, its anonymous
# part; malloc's heap in use and free kept, arenas, at a new peak or after a trim) after each
# scrape, store write and UFM inventory read; printed are the line with the highest RSS and
# the step the peak fell in.
python3 - "$work/daemon.log" "$work/rss" <<'PY'
import json, sys, datetime
lines = []
for line in open(sys.argv[1]):
    if '"msg":"memory"' not in line:
        continue
    j = json.loads(line[line.index("{"):])
    t = datetime.datetime.strptime(j["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
    lines.append((t, j))
samples = []
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 2:
        samples.append((float(parts[0]), int(parts[1]) // 1024))
if not lines:
    print("memory: no \"memory\" lines in the daemon's log")
    sys.exit(0)
def show(j):  # malloc's figures are in a line only at a new peak or after a trim
    if "heap_in_use_mib" not in j:
        return "RSS %d MiB (anonymous %d): malloc not read (no new peak)" % (
            j["rss_mib"], j["anon_mib"])
    return ("RSS %d MiB (anonymous %d): malloc in use %d MiB (mmapped blocks %d), free kept %d,"
            " %d arenas" % (j["rss_mib"], j["anon_mib"], j["heap_in_use_mib"],
                            j["heap_mmapped_mib"], j["heap_free_mib"], j["arenas"]))
t, top = max(lines, key=lambda x: x[1]["rss_mib"])
print("%-40s %s" % ("memory, highest logged (" + top["step"] + ")", show(top)))
if samples:
    pt, peak = max(samples, key=lambda x: x[1])
    after = [j for (lt, j) in lines if lt >= pt]
    before = [j for (lt, j) in lines if lt < pt]
    print("%-40s %d MiB sampled, between \"%s\" and \"%s\"" % (
        "memory, peak in the 0.5 s samples", peak, before[-1]["step"] if before else "start",
        after[0]["step"] if after else "the end"))
    if after:
        print("%-40s %s" % ("memory, the line after the peak", show(after[0])))
PY
printf '%-40s %s ms (of %s scrapes, first excluded)\n' "worst scrape: thread + store write" \
  "$worst" "$scrapes"
printf '%-40s %s%% of a core (measured %s%% at %s s)\n' "CPU, steady window, at 60 s interval" \
  "$cpu" "$cpu_raw" "$interval"

if ((profile)); then  # heaptrack's figures, not the goal's: the breakdown, no RESULT lines
  echo
  echo "## the daemon's heap at its peak, by the ibwarden function that allocated it (heaptrack)"
  heaptrack_print --print-peaks 0 --print-allocators 0 --print-temporary 0 \
    --flamegraph-cost-type peak -F "$work/peak.stacks" "$work"/heap.* >"$work/heaptrack.txt" 2>&1
  awk '{ cost = $NF; $NF = ""; n = split($0, f, ";"); who = "(outside ibwarden)"
         for (i = n; i >= 1; --i) if (f[i] ~ /^[^<(]*ibw::/) { who = f[i]; break }
         sub(/\(.*$/, "", who); by[who] += cost; total += cost }
       END { for (w in by) printf "%10.1f MiB  %s\n", by[w] / 1048576, w
             printf "%10.1f MiB  (total at the peak)\n", total / 1048576 }' "$work/peak.stacks" |
    sort -rn | head -16
  grep -E '^peak (heap memory|RSS)' "$work/heaptrack.txt"
  # What grew between scrapes: moments in ms since the daemon's start (its first log line).
  stamps=$(sed -n 's/^{"ts":"\([^"]*\)".*"msg":"counters stored".*/\1/p' "$work/daemon.log")
  start=$(sed -n '1s/^{"ts":"\([^"]*\)".*/\1/p' "$work/daemon.log")
  end=$(sed -n 's/^{"ts":"\([^"]*\)".*/\1/p' "$work/daemon.log" | tail -1)  # (heaptrack's after)
  since() { echo $((($(date -d "$1" +%s%N) - $(date -d "$start" +%s%N)) / 1000000 + 5000)); }
  moments=()  # 5 s after each store write but the first, while the daemon still ran
  while read -r t; do
    [[ -n $t ]] && (($(since "$t") < $(since "$end") - 5000)) && moments+=("$(since "$t")")
  done < <(sed 1d <<<"$stamps")
  if ((${#moments[@]} >= 2)); then
    echo
    echo "## what grew: the heap by function 5 s after the 2nd and the last scrape's store write"
    case $(ls "$work"/heap.*) in *.zst) unpack=zstdcat ;; *.gz) unpack=zcat ;; *) unpack=cat ;; esac
    $unpack "$work"/heap.* | "$build/bench/ibw-bench-heap_growth" "${moments[0]}" "${moments[-1]}"
  fi
  exit 0
fi
ports=$(sed -n 's/.* rows=\([0-9]*\) .*/\1/p' "$work/scrapes" | tail -1)
label="daemon on UFM telemetry lab (${ports:-?} ports, k=$k$([[ $store == sqlite ]] || echo ", $store"))"
bench_result "$label: peak RSS" "$((hwm / 1024)) MiB" "goal <= 2048 MiB" \
  "$(awk -v a="$hwm" 'BEGIN{ printf "%.0f%% of goal", 100 * a / 1024 / 2048 }')" \
  "$(met le "$hwm" $((2048 * 1024)))"
if ((scrapes < 2)); then
  bench_result "$label: one scrape ingested+evaluated+stored" "no steady scrape" "goal <= 1 s" "-" 0
else
  bench_result "$label: one scrape ingested+evaluated+stored" "$(awk -v w="$worst" 'BEGIN{ printf "%.2f s", w / 1000 }')" \
    "goal <= 1 s" "$(awk -v w="$worst" 'BEGIN{ printf "%.0f%% of goal", w / 10 }')" \
    "$(met le "$worst" 1000)"
fi
bench_result "$label: CPU at 60 s interval" "$cpu% of a core" "goal <= 25%" \
  "$(awk -v c="$cpu" 'BEGIN{ printf "%.0f%% of goal", 100 * c / 25 }')" "$(met le "$cpu" 25)"
