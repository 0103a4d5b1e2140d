#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang under ASan+UBSan and runs each of them.
#
# usage: scripts/fuzz.sh [--only NAME[,NAME...]] [--list] [SECONDS]
#   SECONDS   run time per harness (default 60)
#   --only    run only these harnesses (names as in --list, without "fuzz_")
#   --list    print the harness names and exit
# Environment: BUILD_DIR (default build-fuzz): the build directory; an existing sanitized
#   clang build works too (IBW_FUZZ and IBW_SANITIZE are switched on, other options kept).
#   FUZZ_ARGS: extra libFuzzer flags for every harness (e.g. "-jobs=2 -workers=2").
#   FUZZ_JOBS: how many harnesses run side by side (default: one per core).
#
# Each harness starts from the corpus it kept in BUILD_DIR/fuzz-corpus/NAME, seeded with the
# recorded inputs of tests/data (and fuzz/seeds, config/*.yaml); nothing is written into the
# source tree. Crashes, leaks, timeouts and sanitizer reports are saved under
# BUILD_DIR/fuzz-artifacts/NAME/, the full output under BUILD_DIR/fuzz-logs/NAME.log.
# Prints "fuzz: NAME N execs in S s, clean" per harness, then a total; exits 1 when any
# harness found something. Reproduce a finding: BUILD_DIR/fuzz/fuzz_NAME ARTIFACT.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60 only="" list=0
while (($#)); do
  case $1 in
    --only) only=${2:?--only needs a name}; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]* | "") echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) seconds=$1; shift ;;
  esac
done

# Harness -> seed files (globs, relative to the source tree) and dictionary (fuzz/dict).
declare -A seeds=(
  [ibnetdiscover]="tests/data/unit/ibnetdiscover-*.txt tests/data/routing/ibnetdiscover.txt
                   fuzz/seeds/ibnetdiscover/*"
  [ibnd_cache]="fuzz/seeds/ibnd_cache/*"
  [plan]="tests/data/unit/plan-csv-content.yaml fuzz/seeds/plan/*"
  [node_name_map]="fuzz/seeds/node_name_map/*"
  [lft]="tests/data/routing/dump_fts*.txt tests/data/routing/ibroute-*.txt
         tests/data/routing/opensm-lfts.dump"
  [opensm_log]="tests/data/opensm/*.log"
  [ufm_events]="tests/data/ufm/events-*.json"
  [ufm_event_log]="tests/data/ufm/event.log"
  [ufm_resources]="tests/data/ufm/alarms.json tests/data/ufm/ports.json tests/data/ufm/links*.json
                   tests/data/ufm/unhealthy-ports-*.json tests/data/ufm/job-*.json"
  [ufm_telemetry]="tests/data/ufm/telemetry*"
  [observations]="fuzz/seeds/observations/*"
  [config]="config/ibwarden.example.yaml fuzz/seeds/config/*"
  [rules]="config/rules.yaml fuzz/seeds/rules/*"
  [web_api]="fuzz/seeds/web_api/*"
  [http]="fuzz/seeds/http/*"
  [webhook]="fuzz/seeds/webhook/*"
)
declare -A dict=(
  [ibnetdiscover]=ibnetdiscover [plan]=yaml [lft]=lft [opensm_log]=opensm [ufm_events]=json
  [ufm_event_log]=event_log [ufm_resources]=json [ufm_telemetry]=telemetry [observations]=json
  [config]=yaml [rules]=yaml [web_api]=json
)
mapfile -t all < <(printf '%s\n' "${!seeds[@]}" | sort)
if ((list)); then
  printf '%s\n' "${all[@]}"
  exit 0
fi
names=("${all[@]}")
if [[ -n $only ]]; then
  IFS=', ' read -r -a names <<<"$only"
  for n in "${names[@]}"; do
    [[ -n ${seeds[$n]:-} ]] || { echo "fuzz.sh: no harness '$n' (see --list)" >&2; exit 2; }
  done
fi

build=${BUILD_DIR:-build-fuzz}
configure=(cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBW_SANITIZE=ON -DIBW_FUZZ=ON)
[[ -f $build/CMakeCache.txt ]] || configure+=(-G Ninja)
echo "fuzz: building in $build"
CC=clang CXX=clang++ "${configure[@]}" >/dev/null
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
if [[ -n $only ]]; then
  cmake --build "$build" --target "${targets[@]}"
else
  cmake --build "$build" --target ibw_fuzzers
fi

# Any report stops the run: a fuzzer that carries on after UB would prove nothing.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:symbolize=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# run_one NAME: runs one harness; writes "RUNS SECS" and then its report lines (none when
# clean) to BUILD/fuzz-logs/NAME.result.
run_one() {
  local n=$1 f status=0 runs secs report unit
  local corpus=$build/fuzz-corpus/$n artifacts=$build/fuzz-artifacts/$n/
  local log=$build/fuzz-logs/$n.log result=$build/fuzz-logs/$n.result
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  # shellcheck disable=SC2086  # the globs are meant to expand
  for f in ${seeds[$n]}; do
    [[ -f $f ]] || continue
    cp -f "$f" "$corpus/seed-$(basename "$f")"
  done
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$artifacts")
  [[ -n ${dict[$n]:-} ]] && args+=(-dict="fuzz/dict/${dict[$n]}.dict")
  # shellcheck disable=SC2206  # FUZZ_ARGS is a list of flags
  [[ -n ${FUZZ_ARGS:-} ]] && args+=(${FUZZ_ARGS})
  "$build/fuzz/fuzz_$n" "${args[@]}" "$corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  [[ -n $runs ]] || runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "${runs:-0} ${secs:-$seconds}" >"$result"
  report=$(grep -m1 -E '^==[0-9]+==ERROR|runtime error:|^==[0-9]+== ERROR: libFuzzer|ERROR: LeakSanitizer' "$log" || true)
  if ((status != 0)) || [[ -n $report ]]; then
    unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "FAILED after ${runs:-0} execs (exit $status): ${report:-see $log}" >>"$result"
    echo "  input: ${unit:-none saved}; log: $log" >>"$result"
  fi
}

# The harnesses run side by side, one per core (FUZZ_JOBS overrides): each still gets its full
# SECONDS on a core of its own, and the run takes about SECONDS x harnesses / cores.
parallel=${FUZZ_JOBS:-$(nproc)}
for n in "${names[@]}"; do
  rm -f "$build/fuzz-logs/$n.result"
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  run_one "$n" &
done
wait

total_runs=0 total_secs=0 failed=()
for n in "${names[@]}"; do
  result=$build/fuzz-logs/$n.result
  if [[ ! -s $result ]]; then
    echo "fuzz: $n FAILED: no result (see $build/fuzz-logs/$n.log)"
    failed+=("$n")
    continue
  fi
  read -r runs secs <"$result"
  total_runs=$((total_runs + runs)) total_secs=$((total_secs + secs))
  if (($(wc -l <"$result") > 1)); then
    tail -n +2 "$result" | sed "1s/^/fuzz: $n /; 2,\$s/^/fuzz: /"
    failed+=("$n")
  else
    echo "fuzz: $n $runs execs in $secs s, clean"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: total $total_runs execs in $total_secs s; ${#failed[@]} of ${#names[@]} harnesses failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: total $total_runs execs in $total_secs s; all ${#names[@]} harnesses clean"
