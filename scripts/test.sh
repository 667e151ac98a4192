#!/usr/bin/env bash
# Quick start, part 2, and CI's entry point (.ci/run): installs dependencies, then builds and runs
# every test stage (the conformance tests install the Firefox Profiler's CLI from npm themselves):
#   plain     build/       (RelWithDebInfo)        clang-format check, a build with warnings as
#                                                  errors, clang-tidy check, unit, integration and
#                                                  conformance tests
#   sanitize  build-asan/  (`asan` preset)         the same suite under ASan + UBSan
#   fuzz      build-fuzz/  (`fuzz` preset, clang)  each fuzz target over its seeds, then a few
#                                                  seconds of fuzzing (ctest label `fuzz`)
# A failing stage does not stop the next; the script fails if any stage failed.
#
#   scripts/test.sh [--plain | --sanitize | --fuzz] [ctest arguments...]
# runs one stage. ctest arguments (e.g. -L unit, -R regex) go to the plain and sanitize stages.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=(plain sanitize fuzz)
case "${1:-}" in
  --plain) stages=(plain); shift ;;
  --sanitize) stages=(sanitize); shift ;;
  --fuzz) stages=(fuzz); shift ;;
esac

scripts/install-deps.sh || exit 1

# shellcheck disable=SC2086  # SPROF_CMAKE_ARGS is a list of arguments
run_stage() {
  case "$1" in
    plain)
      # A formatting slip or a lint finding fails the stage but does not keep the tests from
      # running. The lint comes after the build: it reads build/compile_commands.json.
      local formatted=0 linted=0
      scripts/check-format.sh || formatted=1
      SPROF_CMAKE_ARGS="${SPROF_CMAKE_ARGS:-} -DSPROF_WERROR=ON" scripts/build.sh || return 1
      scripts/check-tidy.sh || linted=1
      (cd build && ctest --output-on-failure -j2 "${@:2}") && return $((formatted | linted)) ;;
    sanitize)
      cmake --preset asan ${SPROF_CMAKE_ARGS:-} >/dev/null &&
        cmake --build --preset asan -j"$(nproc)" &&
        ctest --preset asan "${@:2}" ;;
    fuzz)
      cmake --preset fuzz ${SPROF_CMAKE_ARGS:-} >/dev/null &&
        cmake --build --preset fuzz -j"$(nproc)" --target sprof_fuzz_all &&
        ctest --preset fuzz ;;
  esac
}

declare -A build_dir=([plain]=build [sanitize]=build-asan [fuzz]=build-fuzz)

# CI keeps only the end of what a run prints, and a failure in the first stage scrolls away
# behind the next two: the end of the run repeats, for each failed stage, the failed tests and
# the start and end of each one's output (from ctest's own log), or the end of the build's output when
# no test ran.
recap_stage() {
  local dir=${build_dir[$1]} log=$2
  grep '^check-format: [0-9]\|^check-tidy: ' "$log"
  local failed_list=$dir/Testing/Temporary/LastTestsFailed.log
  if [ -s "$failed_list" ] && [ "$failed_list" -nt "$log.started" ]; then
    echo "--- $1: failed tests"
    sed 's/^[0-9]*:/  /' "$failed_list"
    awk -v head=12 -v keep=18 '
      /^[0-9]+\/[0-9]+ Test: / { name = substr($0, index($0, ": ") + 2); n = 0; inside = 0; next }
      /^Output:/ { inside = 1; getline; next }  # and the line of dashes under it
      /^<end of output>/ { inside = 0; next }
      inside { if (n < head) first[n] = $0; else lines[n % keep] = $0; n++ }
      /^Test Failed\./ {
        print "--- " name " (first and last lines of its output)"
        for (i = 0; i < n && i < head; i++) print "  " first[i]
        if (n > head + keep) print "  ..."
        start = n - keep > head ? n - keep : head
        for (i = start; i < n; i++) print "  " lines[i % keep]
      }' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null | head -150
  else
    echo "--- $1: no test ran; the end of its output"
    tail -30 "$log"
  fi
}

recap=()
failed=()
for stage in "${stages[@]}"; do
  echo "=== test.sh: $stage stage"
  started=$SECONDS
  log=$(mktemp "/tmp/sprof-test-$stage.XXXXXX")
  touch "$log.started"
  run_stage "$stage" "$@" 2>&1 | tee "$log"
  ((PIPESTATUS[0] == 0)) || { failed+=("$stage"); recap+=("$(recap_stage "$stage" "$log")"); }
  rm -f "$log" "$log.started"
  echo "=== test.sh: $stage stage took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
done
if ((${#failed[@]})); then
  printf '%s\n' "${recap[@]}"
  echo "=== test.sh: FAILED: ${failed[*]}"
  exit 1
fi
echo "=== test.sh: all stages passed (${stages[*]})"
