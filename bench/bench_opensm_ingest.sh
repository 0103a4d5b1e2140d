#!/usr/bin/env bash
# OpenSM log ingest benchmark: a ~1M-line OpenSM log built by repeating the recorded lines of
# tests/data/opensm/ with increasing timestamps; `grep -c` of the interesting lines next to
# ibw-bench-opensm_ingest (FileTailer + parse + to_event of every line) on the same file,
# best of 3 each, and their ratio.
# Usage: bench/bench_opensm_ingest.sh [--quick]   (--quick: 100k lines)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
lines=1000000
[[ ${1:-} == --quick ]] && lines=100000
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target ibw-bench-opensm_ingest >/dev/null
bench=$root/$BUILD_DIR/bench/ibw-bench-opensm_ingest
work=$(mktemp -d /tmp/ibwarden-bench-osm.XXXXXX)
trap 'rm -rf "$work"' EXIT

source scripts/lib/bench.sh

# The recorded lines, repeated; timestamped lines get a new time 1 ms after the previous one
# (Nov 22 from 00:00:00), untimed lines (continuations, banners) are kept as they are.
data=tests/data/opensm
cat "$data/opensm-default.log" "$data/opensm-verbose-excerpt.log" "$data/traps-handwritten.log" \
  >"$work/template"
awk -v want="$lines" '
  { tpl[n++] = $0 }
  END {
    for (i = 0; i < want; i++) {
      line = tpl[i % n]
      if (line ~ /^[A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9] /) {
        us = i * 1000; s = int(us / 1000000)
        printf "Nov %02d %02d:%02d:%02d %06d%s\n", 22 + int(s / 86400), int(s % 86400 / 3600),
               int(s % 3600 / 60), s % 60, us % 1000000, substr(line, 23)
      } else print line
    }
  }' "$work/template" >"$work/opensm.log"
size=$(du -m "$work/opensm.log" | cut -f1)
pattern='log_trap_info|log_notice|SUBNET UP|ERR [0-9A-F]{4}:'
echo "## OpenSM log ingest: $(wc -l <"$work/opensm.log") lines, ${size} MB"
"$bench" "$work/opensm.log"
echo "grep -cE '$pattern': $(grep -cE "$pattern" "$work/opensm.log")"
echo

best_of 3 grep grep -cE "$pattern" "$work/opensm.log"
best_of 3 parse "$bench" "$work/opensm.log" --parse-only
best_of 3 ingest "$bench" "$work/opensm.log"
printf '%-64s %8s %10s\n' "command" "wall s" "peak RSS"
printf '%-64s %8s %10s\n' "grep -cE '$pattern'" ${grep% *} "$(mib ${grep#* })"
printf '%-64s %8s %10s   (%s of grep -c)\n' "ibw-bench-opensm_ingest --parse-only (read+parse)" \
  ${parse% *} "$(mib ${parse#* })" "$(ratio ${parse% *} ${grep% *})"
printf '%-64s %8s %10s   (%s of grep -c)\n' "ibw-bench-opensm_ingest (FileTailer+parse+event)" \
  ${ingest% *} "$(mib ${ingest#* })" "$(ratio ${ingest% *} ${grep% *})"
