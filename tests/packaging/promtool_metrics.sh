#!/usr/bin/env bash
# `promtool check metrics` on one scrape of /metrics (ibw-metrics-scrape), failing on every
# finding but the accepted one: ibwarden_sm_standby_count is a gauge whose name issue 30 fixed,
# and promtool reserves the _count suffix for histograms and summaries.
# Usage: promtool_metrics.sh SCRAPE_BINARY PROMTOOL
set -uo pipefail
scrape=$("$1") || { echo "scrape failed" >&2; exit 1; }
grep -q '^ibwarden_sm_standby_count' <<<"$scrape" || echo "note: no ibwarden_sm_standby_count sample"
findings=$("$2" check metrics <<<"$scrape" 2>&1)
rest=$(grep -v '^ibwarden_sm_standby_count non-histogram and non-summary metrics should not have "_count" suffix' <<<"$findings" | grep -v '^$')
if [[ -n $rest ]]; then
  echo "$rest" >&2
  exit 1
fi
echo "promtool check metrics: clean (${findings:+1 accepted finding})"
