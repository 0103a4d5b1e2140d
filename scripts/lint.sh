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
if ((${#bad[@]})); then
  echo "not formatted (run scripts/lint.sh --fix): ${bad[*]}" >&2
  exit 1
fi
echo "lint: all files formatted"
