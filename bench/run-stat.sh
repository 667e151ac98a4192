#!/usr/bin/env bash
# `sprof stat` against `perf stat` on a small CPU-bound program (it_spin: SECS of its own CPU
# time), side by side: interleaved rounds (bare, perf stat, sprof stat in each round, so that
# the machine's load hits all three alike), wall-clock ms, min and median of the rounds.
# Prints the rows for docs/benchmarks.md.
#
# Usage: bench/run-stat.sh [BUILD_DIR] [ROUNDS] [SECS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
secs=${3:-0.5}
spin=$build/tests/targets/it_spin
sprof=$build/cli/sprof
for f in "$spin" "$sprof"; do [ -x "$f" ] || { echo "missing $f (build it_spin and sprof)"; exit 1; }; done
command -v perf >/dev/null || { echo "needs perf (linux-perf)"; exit 1; }

declare -A times
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
for ((r = 0; r < rounds; r++)); do
  times[bare]+=" $(ms "$spin" "$secs")"
  times[perf]+=" $(ms perf stat -- "$spin" "$secs")"
  times[sprof]+=" $(ms "$sprof" stat -- "$spin" "$secs")"
done
stats() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {printf "%.1f | %.1f", v[1]/1000, v[int((NR+1)/2)]/1000}'; }
echo "Measured by \`bench/run-stat.sh\` on $(uname -r) ($(nproc) CPUs), $(date -u +%F); load average $(cut -d' ' -f1 /proc/loadavg); it_spin $secs s of CPU, $rounds interleaved rounds."
echo
echo "| command | min ms | median ms |"
echo "| --- | ---: | ---: |"
echo "| \`it_spin $secs\` alone | $(echo "${times[bare]}" | stats) |"
echo "| \`perf stat -- it_spin $secs\` | $(echo "${times[perf]}" | stats) |"
echo "| \`sprof stat -- it_spin $secs\` | $(echo "${times[sprof]}" | stats) |"
