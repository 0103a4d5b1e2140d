#!/usr/bin/env bash
# Builds the Debian package: ${BUILD_DIR:-build}/ibwarden_<version>_<arch>.deb.
# Configures and builds the tree (scripts/build.sh), then CPack's DEB generator packs the install
# rules of packaging/CMakeLists.txt; dependencies come from dpkg-shlibdeps. Prints the path.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
bash scripts/build.sh -DIBW_WERROR=ON >&2
rm -rf "$BUILD_DIR/cpack"
(cd "$BUILD_DIR" && cpack -G DEB >cpack.log 2>&1) || {
  cat "$BUILD_DIR/cpack.log" >&2
  echo "package.sh: cpack failed (log above)" >&2
  exit 1
}
shopt -s nullglob
debs=("$BUILD_DIR"/cpack/ibwarden_*.deb)
if ((${#debs[@]} != 1)); then
  echo "package.sh: expected one .deb in $BUILD_DIR/cpack, found ${#debs[@]}" >&2
  exit 1
fi
out="$BUILD_DIR/$(basename "${debs[0]}")"
mv "${debs[0]}" "$out"
echo "$out"
