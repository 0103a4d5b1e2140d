#!/usr/bin/env bash
# Runs fabrics.e2e.mjs: two fabrics in one dashboard. ibw-e2e-fabrics_lab (fabrics_lab.cpp)
# serves the daemon's web backend, API and server as instance host-a of fabric alpha, over a
# store that also holds fabric beta (leased by host-b); the test drives the dashboard in
# Debian's headless Chromium.
# The store: PostgreSQL when IBW_E2E_PG_URL names a server, or when scripts/lib/pg.sh (a
# private PostgreSQL 15 in a temp dir, on a Unix socket) is present and the postgres backend
# is built in; otherwise two SQLite files behind the same backend code (the log says which).
# Usage: tests/e2e/run_fabrics.sh BUILD_DIR OUT_DIR   (ctest passes both)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh" "$@"
pgdir=""
e2e_cleanup() {
  if [[ -n $pgdir ]]; then stop_private_pg "$pgdir" || true; rm -rf "$pgdir"; fi
}
url=${IBW_E2E_PG_URL:-}
if [[ -z $url && -f $root/scripts/lib/pg.sh ]]; then
  # shellcheck source=/dev/null
  source "$root/scripts/lib/pg.sh"
  pgdir=$(mktemp -d /tmp/ibw-pgf.XXXXXX)  # short: the socket path is limited
  if start_private_pg "$pgdir" >"$out/fabrics-pg.log" 2>&1; then
    url=$(create_db ibw_fabrics)
  else
    echo "run_fabrics.sh: no private PostgreSQL (see fabrics-pg.log): using SQLite files" >&2
  fi
fi
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
(umask 077 && echo "viewer $token" >"$work/tokens")
start_lab() {
  "$build/tests/ibw-e2e-fabrics_lab" --dir "$work" --tokens "$work/tokens" \
    --ready-file "$work/ready" ${1:+--url "$1"} >"$out/fabrics-lab.log" 2>&1 &
  bg=$!
  e2e_wait_ready 300
}
if ! start_lab "$url"; then
  if [[ -n $url ]] && grep -q "postgres backend is not built in" "$out/fabrics-lab.log"; then
    echo "run_fabrics.sh: the postgres backend is not built in: using SQLite files" >&2
    url=""
    start_lab "" || { echo "run_fabrics.sh: the lab failed:" >&2; cat "$out/fabrics-lab.log" >&2; exit 1; }
  else
    echo "run_fabrics.sh: the lab failed:" >&2; cat "$out/fabrics-lab.log" >&2; exit 1
  fi
fi
port=$(sed -n 's/^port=//p' "$work/ready")
echo "run_fabrics.sh: store backend $(sed -n 's/^backend=//p' "$work/ready")"
cd "$here"
IBW_URL=http://127.0.0.1:$port/ IBW_VIEWER=$token IBW_E2E_OUT=$out node fabrics.e2e.mjs
