#!/usr/bin/env bash
# Runs sprof's libFuzzer targets (tests/fuzz, docs/fuzzing.md) one after another, each for
# SECONDS (default 60), and prints a table: executions, speed, corpus, crashes, timeouts, OOMs.
#
#   scripts/fuzz.sh [options] [SECONDS] [TARGET...]     (no TARGET: every target)
#     --runs N            stop a target after N executions if SECONDS have not passed yet
#     --seed N            libFuzzer's random seed (default: a new one per run); ctest's short
#                         runs use a fixed seed so that CI repeats what was checked before landing
#     -o, --summary FILE  also write the table (Markdown) to FILE
#                         (default: <build dir>/fuzz/summary.md; none with --quiet)
#     --build-dir DIR     the fuzz build (default: build-fuzz, configured by the `fuzz` preset)
#     --no-build          do not configure and build first
#     --quiet             only the rows, and a target's libFuzzer log when it fails (for ctest)
#     --scratch-corpus    start from the seeds alone, in a temporary working corpus deleted
#                         afterwards (ctest: a run here starts where CI's run starts)
#
# Each target fuzzes a working corpus, <build dir>/fuzz/corpus/<target>, which keeps what earlier
# runs found, seeded from tests/fuzz/corpus/<target> (committed) and
# <build dir>/tests/fuzz/corpus-generated/<target> (written at build time). Crashing, timing-out
# and out-of-memory inputs go to <build dir>/fuzz/artifacts/<target>/, the full log to
# <build dir>/fuzz/logs/<target>.log. One process at a time: the targets run in sequence.
# Exit status: 0 when every target ran clean, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD

seconds=60
runs=""
seed=""
scratch=0
build_dir=build-fuzz
build=1
quiet=0
summary=""
targets=()
while (($#)); do
  case "$1" in
    -o | --summary) summary=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --quiet) quiet=1; shift ;;
    --scratch-corpus) scratch=1; shift ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *)
      if ((${#targets[@]} == 0)) && [[ $1 =~ ^[0-9]+$ ]]; then seconds=$1; else targets+=("$1"); fi
      shift ;;
  esac
done

if ((build)); then
  # shellcheck disable=SC2086  # SPROF_CMAKE_ARGS is a list of arguments
  cmake --preset fuzz -B "$build_dir" ${SPROF_CMAKE_ARGS:-} >/dev/null || exit 1
  cmake --build "$build_dir" -j"$(nproc)" --target sprof_fuzz_all || exit 1
fi
build_dir=$(cd "$build_dir" && pwd) || exit 1
fuzz_bin=$build_dir/tests/fuzz
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(grep -v '^$' "$fuzz_bin/targets.txt")
fi
work=$build_dir/fuzz
if [ -z "$summary" ]; then
  if ((quiet)); then summary=/dev/null; else summary=$work/summary.md; fi
fi
mkdir -p "$work/logs" "$(dirname "$summary")"

# Reads "stat::<name>: <value>" from a libFuzzer log (-print_final_stats=1).
stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -n 1; }
count() { find "$1" -maxdepth 1 -name "$2-*" -newer "$3" | wc -l; }

header="| target | seconds | executions | exec/s | corpus | peak RSS (MB) | crashes | timeouts | OOMs | leaks | result |"
rule="| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
{
  echo "Fuzzing run of $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown), ${seconds} s${runs:+ or $runs executions} per target"
  echo
  echo "$header"
  echo "$rule"
} >"$summary"
((quiet)) || printf '%s\n%s\n' "$header" "$rule"

# Hostile inputs make sprof's libraries log warnings by design; printing one per input would
# slow the targets down and bury libFuzzer's own output.
export SPROF_LOG=${SPROF_LOG:-error}
failed=0
for target in "${targets[@]}"; do
  binary=$fuzz_bin/sprof_fuzz_$target
  if [ ! -x "$binary" ]; then
    echo "fuzz.sh: no fuzz target '$target' in $fuzz_bin" >&2
    failed=1
    continue
  fi
  corpus=$work/corpus/$target
  ((scratch)) && corpus=$(mktemp -d)
  artifacts=$work/artifacts/$target
  log=$work/logs/$target.log
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  for dir in "$source_dir/tests/fuzz/corpus/$target" "$fuzz_bin/corpus-generated/$target"; do
    [ -d "$dir" ] && seeds+=("$dir")
  done
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$artifacts/")
  [ -n "$runs" ] && options+=(-runs="$runs")
  [ -n "$seed" ] && options+=(-seed="$seed")
  [ -f "$source_dir/tests/fuzz/dict/$target.dict" ] &&
    options+=(-dict="$source_dir/tests/fuzz/dict/$target.dict")

  marker=$(mktemp)
  started=$SECONDS
  "$binary" "${options[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
  status=$?
  elapsed=$((SECONDS - started))

  executions=$(stat "$log" number_of_executed_units)
  speed=$(stat "$log" average_exec_per_sec)
  rss=$(stat "$log" peak_rss_mb)
  corpus_size=$(find "$corpus" -type f | wc -l)
  crashes=$(count "$artifacts" crash "$marker")
  timeouts=$(count "$artifacts" timeout "$marker")
  ooms=$(count "$artifacts" oom "$marker")
  leaks=$(count "$artifacts" leak "$marker")
  rm -f "$marker"
  ((scratch)) && rm -rf "$corpus"
  result=ok
  if ((status != 0 || crashes + timeouts + ooms + leaks > 0)); then
    result="FAILED (exit $status; log: $log)"
    failed=1
  fi
  row="| $target | $elapsed | ${executions:-?} | ${speed:-?} | $corpus_size | ${rss:-?} | $crashes | $timeouts | $ooms | $leaks | $result |"
  echo "$row" >>"$summary"
  ((quiet)) && [ "$result" != ok ] && tail -n 60 "$log"
  echo "$row"
done
((quiet)) || echo "summary: $summary"
exit "$failed"
