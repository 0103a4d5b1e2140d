#!/usr/bin/env bash
# Style check: every C++ file must be formatted by .clang-format. Exit 1 lists the offenders.
# With --fix, formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.h')
if [[ ${1:-} == --fix ]]; then
  clang-format -i $files
  exit 0
fi
bad=()
for f in $files; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
# ctest runs each Catch2 test by name, and Catch reads ',' in a name as "or": such a test
# would silently run nothing under ctest.
while IFS= read -r hit; do bad+=("$hit (',' or ';' in a TEST_CASE name)"); done < <(
  git grep -n -E 'TEST_CASE\("[^"]*[,;][^"]*"' -- 'tests/*.cpp' || true)
if ((${#bad[@]})); then
  printf 'lint: %s\n' "${bad[@]}" >&2
  echo "(formatting: run scripts/lint.sh --fix)" >&2
  exit 1
fi
echo "lint: all files formatted"
