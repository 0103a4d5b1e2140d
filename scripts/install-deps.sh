#!/usr/bin/env bash
# Installs the Debian packages ibwarden needs to build, test and run its demo.
# Idempotent: packages already installed are skipped; apt is touched only if something is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config ccache
  clang libclang-rt-dev llvm  # the sanitizer build (scripts/test.sh --sanitize) and libFuzzer
  # libraries
  libyaml-cpp-dev nlohmann-json3-dev catch2 libsqlite3-dev sqlite3
  libibumad-dev libibmad-dev libibnetdisc-dev
  libcurl4-openssl-dev  # webhook delivery of work orders, the UFM client
  libboost-dev          # Boost.Beast/Asio (header-only) for the web API
  libssl-dev            # OpenSSL: HTTPS of the web API (web.tls_cert, web.tls_key)
  zlib1g-dev            # gzip of large web API answers
  libcli11-dev          # the commands' options, --help, man page and completion (cli/)
  libsystemd-dev        # sd_notify READY/WATCHDOG and journald fields (daemon/)
  libpq-dev             # libpq: the PostgreSQL store backend (store.backend: postgres)
  # packaging: the .deb (scripts/package.sh) and its checks
  dpkg-dev fakeroot lintian systemd file
  groff-base man-db  # the generated ibwarden(1) is checked with groff and man
  prometheus  # promtool: checks packaging/prometheus/ibwarden-alerts.yml
  # the IB lab: simulator, subnet manager, stock diagnostics (tests, demo, benchmarks)
  ibsim-utils opensm infiniband-diags
  python3 curl  # tests: the webhook receiver, the UFM emulator, the web API client
  openssl       # tests: self-signed certificates for the HTTPS tests
  # tests, demo --ha, bench_store.sh: private PostgreSQL servers (initdb + postgres from
  # /usr/lib/postgresql/15/bin; tests/lab/pg_server.h, scripts/lib/pg.sh)
  postgresql-15
  # tests: a private Slurm (munged + slurmctld + one slurmd from a temp dir; tests/lab/slurm_lab.h)
  # for the drain and resume of issue 33
  slurmctld slurmd slurm-client munge
  chromium  # tests: the dashboard end to end in headless Chromium (tests/e2e)
  # benchmarks
  time
  wrk  # bench/bench_web.sh: GET /api/v1/ports under load
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js drives the browser test; machines of this kind ship Node 20 (Debian's is 18, too old
# for playwright-core): Debian's is the fallback when there is none at all.
command -v node >/dev/null || missing+=(nodejs npm)

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Only the server binaries are wanted: no system cluster created and started at install.
  if [[ " ${missing[*]} " == *" postgresql-15 "* ]]; then
    $SUDO mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" |
      $SUDO tee /etc/postgresql-common/createcluster.d/ibwarden.conf >/dev/null
  fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The browser test's one npm package (playwright-core, pinned by package-lock.json; it uses
# Debian's chromium and downloads no browser).
e2e=$(cd "$(dirname "$0")/../tests/e2e" && pwd)
if [[ ! -f $e2e/node_modules/playwright-core/package.json ]]; then
  echo "install-deps: npm ci in tests/e2e"
  (cd "$e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi
