# The start every bench/*.sh shares; source it first: `source "$(dirname "$0")/lib.sh"`.
# Strict mode, the repository root as the working directory ($root), $quick (1 when the
# script's first argument is --quick), $BUILD_DIR (default build) and its absolute path $build,
# and the helpers of scripts/lib/bench.sh (best_of, bench_result, mib, ...). Also:
#   bench_build TARGET...          configures $build and builds the targets (-j $build_jobs, default
#                                  every core)
#   bench_tool NAME [TARGET...]    bench_build of ibw-bench-NAME (bench/NAME.cpp) and the other
#                                  targets; $bench is its path
#   bench_build_in_tree TARGET...  builds the targets in an existing $build, else the whole tree
#                                  with scripts/build.sh
#   bench_workdir NAME             $work, a new /tmp/ibwarden-bench-NAME.XXXXXX, removed at exit
#                                  (unless keep_work=1) after the commands given to at_exit;
#                                  the cleanup runs without set -e, so that a killed child's
#                                  status (143) cannot end it half-way
#   bench_sim_workdir NAME         the same for a bench on ibsim + OpenSM (scripts/lib/simlab.sh),
#                                  with sim_stop at exit
#   bench_sim_fat_tree L S H       ibw-labgen's fat tree of L leaves, S spines and H hosts per
#                                  leaf in $work/gen, started on ibsim (sim_start, 300 s), the
#                                  working directory $SIM_DIR (umad2sim keeps its fake sysfs
#                                  there) and on_sim the command prefix that runs a tool on it
#   bench_sim_settle TRIES         lets OpenSM finish its post-SUBNET-UP work (its MADs share
#                                  ibsim with the bench's): waits until its log has not grown
#                                  for 2 s, checking at most TRIES times
#   bench_kill PID                 stops a background child (nothing when PID is empty)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
quick=0
if [[ ${1:-} == --quick ]]; then quick=1; fi
BUILD_DIR=${BUILD_DIR:-build}
build=$root/$BUILD_DIR
source scripts/lib/bench.sh

bench_build() {
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "${build_jobs:-$(nproc)}" --target "$@" >/dev/null
}

bench_tool() {
  bench_build "ibw-bench-$1" "${@:2}"
  bench=$build/bench/ibw-bench-$1
}

bench_build_in_tree() {
  if [[ -f $build/build.ninja ]]; then
    cmake --build "$build" --target "$@" >/dev/null
  else
    BUILD_DIR=$BUILD_DIR scripts/build.sh >/dev/null
  fi
}

keep_work=${keep_work:-0}  # keep_work=1 in the environment keeps $work
exit_commands=()
at_exit() { exit_commands+=("$1"); }
bench_cleanup() {
  set +e
  local c
  for c in "${exit_commands[@]}"; do eval "$c"; done
  ((keep_work)) || rm -rf "$work"
}
bench_kill() { [[ -n ${1:-} ]] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; }
bench_workdir() {
  work=$(mktemp -d "/tmp/ibwarden-bench-$1.XXXXXX")
  trap bench_cleanup EXIT
}
bench_sim_fat_tree() {
  "$build/tests/lab/ibw-labgen" --out "$work/gen" --leaves "$1" --spines "$2" \
    --hosts-per-leaf "$3" >/dev/null
  sim_start "$work/gen/net" "$work/sim" 300
  cd "$SIM_DIR"
  on_sim=(env IBSIM_SOCKNAME="$SIM_SOCK" LD_PRELOAD="$SIM_PRELOAD")
}
bench_sim_settle() {
  local i size last=-1
  for ((i = 0; i < $1; i++)); do
    size=$(stat -c %s "$SIM_DIR/opensm.log")
    ((size == last)) && break
    last=$size
    sleep 2
  done
}
bench_sim_workdir() {
  source scripts/lib/simlab.sh
  bench_workdir "$1"
  at_exit sim_stop
}
