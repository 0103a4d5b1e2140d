# A private PostgreSQL 15 (Debian's /usr/lib/postgresql/15/bin) in a directory of its own, for
# scripts/demo.sh --ha and the benchmarks; the shell twin of tests/lab/pg_server.h. The server
# listens only on a Unix socket in that directory (listen_addresses='', no TCP), and runs as
# the unprivileged user postgres when the caller is root (initdb refuses root; the user is
# created with useradd --system when missing), else as the caller. Source this file.
#
#   start_private_pg DIR [--durable] [-c NAME=VALUE ...]
#       initdb into DIR/data (DIR is created; it must be new or empty) and start the server;
#       log in DIR/server.log. Exports PG_DIR and PG_SOCKDIR (= DIR) and prints the socket dir.
#       Tests-style by default: fsync=off. --durable keeps fsync on with synchronous_commit=off
#       (commits do not wait for the WAL flush, as SQLite's synchronous=NORMAL in WAL mode):
#       for benchmarks. Further -c options go to the server. DIR's path must be short (the
#       socket path DIR/.s.PGSQL.5432 fits in 107 bytes); as root the user postgres must be
#       able to reach it (a directory under /tmp is).
#   pg_url DB               prints postgresql:///DB?host=$PG_SOCKDIR&user=postgres
#   create_db DB            drops DB if it exists, creates it, prints pg_url DB
#   pg_psql DB ARGS...      runs psql on DB (-X -q -v ON_ERROR_STOP=1)
#   stop_private_pg [DIR]   stops the server at once (pg_ctl stop -m immediate; default
#                           $PG_DIR). Safe under set -e and when nothing runs. DIR is kept.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# _pg_as CMD...: CMD as the user that owns the server.
_pg_as() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_private_pg() {
  local dir=$1 durable=0
  shift
  if [[ ${1:-} == --durable ]]; then
    durable=1
    shift
  fi
  local t
  for t in initdb pg_ctl postgres; do
    if [[ ! -x $PG_BIN/$t ]]; then
      echo "pg.sh: $PG_BIN/$t not found (PostgreSQL 15 server, Debian package postgresql-15):" \
        "run scripts/install-deps.sh" >&2
      return 1
    fi
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [[ $(id -u) -eq 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
      useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
    fi
    chown postgres: "$dir"
    if ! runuser -u postgres -- test -x "$dir"; then
      echo "pg.sh: the user postgres cannot reach $dir (a parent directory is private?)" >&2
      return 1
    fi
  fi
  chmod 700 "$dir"
  if ! (cd "$dir" && _pg_as "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
    --no-locale --no-sync --no-instructions >"$dir/initdb.log" 2>&1); then
    echo "pg.sh: initdb failed:" >&2
    tail -20 "$dir/initdb.log" >&2
    return 1
  fi
  local opts="-k $dir -c listen_addresses=''"
  if ((durable)); then
    opts+=" -c synchronous_commit=off"
  else
    opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  while (($# >= 2)) && [[ $1 == -c ]]; do
    opts+=" -c $2"
    shift 2
  done
  if ! (cd "$dir" && _pg_as "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s \
    -t 60 -o "$opts" start >/dev/null 2>&1); then
    echo "pg.sh: the server did not start:" >&2
    tail -20 "$dir/server.log" >&2
    return 1
  fi
  export PG_DIR=$dir PG_SOCKDIR=$dir
  echo "$dir"
}

pg_url() { echo "postgresql:///$1?host=$PG_SOCKDIR&user=postgres"; }

pg_psql() {
  local db=$1
  shift
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$(pg_url "$db")" "$@"
}

create_db() {
  PGOPTIONS="-c client_min_messages=warning" pg_psql postgres \
    -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" &&
    pg_url "$1"
}

stop_private_pg() {
  local dir=${1:-${PG_DIR:-}}
  [[ -n $dir && -f $dir/data/postmaster.pid ]] || return 0
  (cd "$dir" && _pg_as "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -s stop >/dev/null 2>&1) ||
    true
}
