#!/usr/bin/env bash
# Runs every test: installs missing packages, builds, then runs unit and integration tests
# (integration tests start real ibsim + OpenSM fabrics). Usage: scripts/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh -DIBW_WERROR=ON
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" "$@"
