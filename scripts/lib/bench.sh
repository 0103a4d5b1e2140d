# Shell helpers shared by the benchmarks under bench/. Source after setting $work (a scratch
# directory). Output of measured commands goes to a file, not /dev/null: GNU grep stops at
# the first match when it writes to /dev/null.

# best_of N OUTVAR CMD...: runs CMD N times; sets OUTVAR to "<best wall s> <max RSS KB>". Wall
# time comes from bash's microsecond clock (time(1) rounds to 10 ms), RSS from time(1).
best_of() {
  local n=$1 var=$2 best="" rss=0 t0 t m
  shift 2
  for ((i = 0; i < n; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$work/time" "$@" >"$work/out" 2>&1 || true
    t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.3f", b - a }')
    m=$(tail -1 "$work/time")
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
    ((m > rss)) && rss=$m
  done
  printf -v "$var" '%s %s' "$best" "$rss"
}

# median_of N OUTVAR CMD...: runs CMD N times; sets OUTVAR to "<median wall s> <max RSS KB>
# <fastest s> <slowest s>". For runs whose wall time varies between runs on a shared VM.
median_of() {
  local n=$1 var=$2 t0 all="" rss=0 m
  shift 2
  for ((i = 0; i < n; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$work/time" "$@" >"$work/out" 2>&1 || true
    all+="$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{ printf "%.3f", b - a }') "
    m=$(tail -1 "$work/time")
    ((m > rss)) && rss=$m
  done
  printf -v "$var" '%s' "$(tr ' ' '\n' <<<"$all" | grep . | sort -n |
    awk -v r="$rss" '{ t[NR] = $1 } END { printf "%s %s %s %s", t[int((NR + 1) / 2)], r, t[1], t[NR] }')"
}

# ratio A B: "A/B" as "12.3x".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b <= 0) b = 0.001; printf "%.1fx", a / b }'; }
# mib KB: "12 MiB".
mib() { awk -v k="$1" 'BEGIN{ printf "%.0f MiB", k / 1024 }'; }

# Goal lines for bench/run_all.sh. Every bench prints one line per goal it measures:
#   RESULT<TAB>figure<TAB>ours<TAB>reference<TAB>ratio<TAB>✅|❌
# where "reference" is the stock tool's figure in the same run, or the goal where no stock
# tool exists, and "ratio" says how ours compares ("5.2x faster", "61% of goal", or "-").
# bench_result FIGURE OURS REFERENCE RATIO MET(1|0)
bench_result() {
  local mark=❌
  [[ $5 == 1 ]] && mark=✅
  printf 'RESULT\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$mark"
}
# le A B: exit 0 when the number A <= B (floats).
le() { awk -v a="$1" -v b="$2" 'BEGIN{ exit !(a + 0 <= b + 0) }'; }
# ge A B: exit 0 when the number A >= B (floats).
ge() { awk -v a="$1" -v b="$2" 'BEGIN{ exit !(a + 0 >= b + 0) }'; }
# met CMD...: prints 1 when CMD succeeds, else 0 (for bench_result's MET).
met() { if "$@"; then echo 1; else echo 0; fi; }

# daemon_malloc_tunables: the GLIBC_TUNABLES that `ibwarden run` re-executes itself with
# (cli/alloc_tuning.cpp, kMallocTunables), read from that source so there is one copy. Benches
# whose driver stands in for the daemon (rules, web lab, store day) export it, so that their
# process allocates as the daemon's does.
daemon_malloc_tunables() {
  sed -n '/kMallocTunables =/,/;/p' "${root:-.}/cli/alloc_tuning.cpp" | grep -o '"[^"]*"' |
    tr -d '"\n'
}
