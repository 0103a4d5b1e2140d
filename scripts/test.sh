#!/usr/bin/env bash
# Runs every test: installs missing packages, builds, then runs unit and integration tests
# (integration tests start real ibsim + OpenSM fabrics). Usage: scripts/test.sh [ctest args...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBW_WERROR=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"
