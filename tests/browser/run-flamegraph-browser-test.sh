#!/bin/sh
# The flame graph in a real browser: writes the hand-made profile (and, where perf events may be
# opened, records a real one), draws both with `sprof flamegraph`, and checks them in headless
# Chromium (flamegraph_browser_test.mjs). Screenshots stay in OUT_DIR.
# Exit 77 (skipped) when Chromium or node is not installed.
#
# Usage: run-flamegraph-browser-test.sh SPROF FIXTURE_WRITER RECORD_TARGET OUT_DIR
set -eu

sprof=$1 fixture_writer=$2 record_target=$3 out=$4
script_dir=$(cd "$(dirname "$0")" && pwd)

chromium=${SPROF_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "skipped: $chromium not found (Debian: apt-get install chromium; scripts/install-deps.sh does)"
  exit 77
fi
if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node not found (Debian: apt-get install nodejs npm)"
  exit 77
fi
tools=$(sh "$script_dir/install-playwright.sh")

rm -rf "$out"
mkdir -p "$out"
"$fixture_writer" "$out/fixture.json"
"$sprof" flamegraph "$out/fixture.json" -o "$out/fixture.svg"

recorded=""
# Two threads for a second; a machine that forbids perf events (perf_event_paranoid,
# containers) still runs the fixture's checks.
if timeout 300 "$sprof" record -s -q -o "$out/recorded.json.gz" -- "$record_target" 2 1 \
     >"$out/record.log" 2>&1; then
  "$sprof" flamegraph "$out/recorded.json.gz" -o "$out/recorded.svg"
  recorded="$out/recorded.svg"
else
  echo "note: sprof record failed here (see $out/record.log): only the hand-made profile is checked"
fi

node "$script_dir/flamegraph_browser_test.mjs" "$tools" "$chromium" "$out" "$out/fixture.svg" $recorded
