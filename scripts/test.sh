#!/usr/bin/env bash
# Runs every test: installs missing packages, builds, then runs the unit and integration tests
# (integration tests start real ibsim + OpenSM fabrics), the dashboard in Chromium and a short
# kill -9 fault storm; then the same unit and integration suites again under sanitizers, and
# every fuzz harness for a few seconds.
# Usage: scripts/test.sh [--plain|--sanitize] [ctest args...]
#   --plain     only the first part (RelWithDebInfo, g++, -Werror) in ${BUILD_DIR:-build}
#   --sanitize  only the second: a clang build with AddressSanitizer + UndefinedBehaviorSanitizer
#               (and libFuzzer's coverage hooks) in ${ASAN_BUILD_DIR:-build-asan}, running the unit
#               and integration suites (not the browser test or the storm: they run no code
#               of ours the plain run does not cover), then scripts/fuzz.sh 5. Any sanitizer
#               report (memory error, leak, undefined behaviour) fails the run.
# Each half runs its tests on one PostgreSQL server of its own (stopped and removed at the end,
# also on failure or Ctrl-C) and ends with its wall time, e.g. "plain half: 742 s".
set -euo pipefail
cd "$(dirname "$0")/.."

part=both
if [[ ${1:-} == --plain || ${1:-} == --sanitize ]]; then
  part=${1#--}
  shift
fi
if [[ $part == both ]]; then
  bash scripts/test.sh --plain "$@"  # from the repository root (cd above), whatever $0 was
  exec bash scripts/test.sh --sanitize "$@"
fi
scripts/install-deps.sh

# At the end, also on failure or Ctrl-C: the half's wall time, and the test PostgreSQL stopped
# and removed.
test_pg_dir=""
finish() {
  local rc=$?
  if [[ -n $test_pg_dir ]]; then
    stop_private_pg "$test_pg_dir"
    rm -rf "$test_pg_dir"
  fi
  echo "$part half: $SECONDS s$( ((rc == 0)) || echo " (failed, exit $rc)")"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# One PostgreSQL server for the whole half (scripts/lib/pg.sh: initdb in a temp dir, Unix socket
# only, fsync off), started before ctest: every PostgreSQL-backed test process takes its fresh
# database on it (tests/lab/pg_server.h) instead of running an initdb of its own (about 1.2 s
# each). A server named by the caller's IBW_TEST_PG_URL_BASE is used as it is.
start_test_pg() {
  [[ -z ${IBW_TEST_PG_URL_BASE:-} ]] || return 0
  # shellcheck source=scripts/lib/pg.sh
  source scripts/lib/pg.sh
  test_pg_dir=$(mktemp -d /tmp/ibw-pgt.XXXXXX)  # short: the socket path is limited
  # max_connections: room for the daemons, pools and CLI runs of two tests at once (ctest -j).
  start_private_pg "$test_pg_dir" -c max_connections=200 >/dev/null
  export IBW_TEST_PG_URL_BASE="postgresql://?host=$test_pg_dir&user=postgres"
}

if [[ $part == plain ]]; then
  BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh -DIBW_WERROR=ON
  start_test_pg
  (cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)" "$@")
  exit 0
fi

export BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}  # also scripts/fuzz.sh's build directory
# -O1 and no debug info beyond line tables: sanitized code is slow, and this build is only
# ever run by tests. CC/CXX only take effect when the build directory is first configured.
CC=clang CXX=clang++ scripts/build.sh -DIBW_SANITIZE=ON -DIBW_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG"
# Leaks are reported too; any report ends the process with an error (tests see a failure).
# The suppressions name code that is not ours only (ibsim's umad2sim shim), with the reason.
supp=$PWD/tests/sanitizers
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:suppressions=$supp/asan.supp}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$supp/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Left out: the lint, the .deb (tests/deb; the plain half checks it), and the one throughput
# test (50,000 UFM events within 40 s; ASan makes ingest about 5x slower, and the other UFM
# daemon tests run the same code).
start_test_pg
(cd "$BUILD_DIR" && ctest --output-on-failure -j "$(nproc)" -LE 'e2e|fault|^deb$' \
  -E '^style|50000-event backlog' "$@")
scripts/fuzz.sh 5
