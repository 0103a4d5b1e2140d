#!/usr/bin/env bash
# Runs every benchmark under bench/ in sequence and prints one table of the goals they measure:
# our figure, the stock tool's figure in the same run (or the goal where no stock tool exists),
# the ratio and ✅/❌. Each bench prints its goal rows as RESULT lines (scripts/lib/bench.sh,
# bench_result); its full output goes to a log file beside the table.
#
# Usage: bench/run_all.sh [--quick] [--out DIR] [--only REGEX]
#   --quick       every bench with its --quick size (CI smoke: small fabrics, few runs)
#   --out DIR     where the logs and table.md go (default: a new /tmp/ibwarden-bench-all.XXXXXX)
#   --only REGEX  run only the benches whose script name matches (e.g. 'audit|rules')
# Exit 0 when every bench ran to its end, whether or not every goal was met; 1 when a bench
# failed (named, with its log), so its goals could not be measured. The last line is always
# "N of M goals met". Benchmarks want a quiet machine: the load average is printed before each
# bench, and a warning when it is above 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=() out="" only=""
while (($#)); do
  case $1 in
    --quick) quick=(--quick) ;;
    --out) out=$2 && shift ;;
    --only) only=$2 && shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' && exit 0 ;;
    *) echo "run_all.sh: unknown argument '$1' (see --help)" >&2 && exit 2 ;;
  esac
  shift
done
[[ -n $out ]] || out=$(mktemp -d /tmp/ibwarden-bench-all.XXXXXX)
mkdir -p "$out"

# Build once, up front, so no bench's figure includes a compile and every bench uses the same
# binaries (each script's own build step is then a no-op).
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh >"$out/build.log" 2>&1 ||
  { echo "run_all.sh: build failed, see $out/build.log" >&2 && exit 1; }

# Goal benches first, in the issue's table order; then the ones that only report figures.
order=(audit rules lab counters remedy opensm_ingest web dashboard store_day store localize
  daemon probe ufm)
scripts=()
for name in "${order[@]}"; do [[ -x bench/bench_$name.sh ]] && scripts+=("bench/bench_$name.sh"); done
for s in bench/bench_*.sh; do  # any bench not in the list above still runs, last
  [[ " ${scripts[*]} " == *" $s "* ]] || scripts+=("$s")
done

rows=() failed=()
started=$SECONDS
for s in "${scripts[@]}"; do
  name=$(basename "$s" .sh)
  [[ -z $only || $name =~ $only ]] || continue
  load=$(cut -d' ' -f1 /proc/loadavg)
  printf '%s  %-26s load %s%s ... ' "$(date -u +%H:%M:%S)" "$name" "$load" \
    "$(awk -v l="$load" 'BEGIN{ if (l > 1) printf " (not quiet)" }')"
  t0=$SECONDS
  if bash "$s" "${quick[@]}" >"$out/$name.log" 2>&1; then
    echo "done in $((SECONDS - t0)) s"
  else
    rc=$?
    echo "FAILED (exit $rc) after $((SECONDS - t0)) s: $out/$name.log"
    failed+=("$name")
    rows+=("$(printf '%s\t%s\t%s\t%s\t%s' "$name: bench failed (exit $rc)" "-" "-" "-" ❌)")
  fi
  while IFS= read -r line; do rows+=("${line#RESULT$'\t'}"); done < <(grep -a '^RESULT'$'\t' "$out/$name.log")
done

{
  echo "| figure | ibwarden | stock tool or goal | ratio | |"
  echo "|---|---|---|---|---|"
  for r in "${rows[@]}"; do
    IFS=$'\t' read -r fig ours ref ratio mark <<<"$r"
    echo "| $fig | $ours | $ref | $ratio | $mark |"
  done
} >"$out/table.md"
echo
echo "$(nproc) cores, $(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576)) GiB;" \
  "${quick:+quick run; }all benches took $((SECONDS - started)) s; logs in $out"
echo
cat "$out/table.md"
echo
total=${#rows[@]}
good=$(printf '%s\n' "${rows[@]}" | grep -c '✅$' || true)
((total)) || good=0
if ((${#failed[@]})); then
  echo "benches that could not run: ${failed[*]} (logs in $out)"
fi
echo "$good of $total goals met"
((${#failed[@]} == 0))
