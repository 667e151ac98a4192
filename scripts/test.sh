#!/usr/bin/env bash
# Quick start, part 2, and CI's entry point (.ci/run): installs dependencies, then builds and runs
# every test stage (the conformance tests install the Firefox Profiler's CLI from npm themselves):
#   plain     build/       (RelWithDebInfo)        unit, integration and conformance tests
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
      scripts/build.sh && (cd build && ctest --output-on-failure -j2 "${@:2}") ;;
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

failed=()
for stage in "${stages[@]}"; do
  echo "=== test.sh: $stage stage"
  started=$SECONDS
  run_stage "$stage" "$@" || failed+=("$stage")
  echo "=== test.sh: $stage stage took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
done
if ((${#failed[@]})); then
  echo "=== test.sh: FAILED: ${failed[*]}"
  exit 1
fi
echo "=== test.sh: all stages passed (${stages[*]})"
