#!/usr/bin/env bash
# Style check: every C++ file must be formatted by .clang-format, and no folder may include a
# higher layer's headers (see docs/architecture.md). Exit 1 lists the offenders.
# With --fix, formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tracked files and new ones not yet added (not ignored), so a file formatted only after
# `git add` cannot slip through unformatted.
files=$(git ls-files --cached --others --exclude-standard '*.cpp' '*.h')
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
  git grep -n --untracked -E 'TEST_CASE\("[^"]*[,;][^"]*"' -- 'tests/*.cpp' || true)
# Layers, bottom up: a folder includes only its own headers and those of lower layers.
#   0 core | 1 fabric | 2 ingest config | 3 rules store | 4 actions web | 5 daemon | 6 cli | 7 fuzz
declare -A layer=([core]=0 [fabric]=1 [ingest]=2 [config]=2 [rules]=3 [store]=3 [actions]=4
                  [web]=4 [daemon]=5 [cli]=6 [fuzz]=7)
while IFS=: read -r file _ inc; do
  from=${file%%/*} to=${inc#*\"} to=${to%%/*}
  [[ -n ${layer[$from]:-} && -n ${layer[$to]:-} && $from != "$to" ]] || continue
  if ((layer[$to] >= layer[$from])); then
    bad+=("$file includes $to/ (layer ${layer[$to]}) from $from/ (layer ${layer[$from]})")
  fi
done < <(git grep -n --untracked -E '^#include "[a-z_]+/' -- "${!layer[@]}")
if ((${#bad[@]})); then
  printf 'lint: %s\n' "${bad[@]}" >&2
  echo "(formatting: run scripts/lint.sh --fix; layers: docs/architecture.md)" >&2
  exit 1
fi
echo "lint: all files formatted; no include from a lower layer to a higher one"
