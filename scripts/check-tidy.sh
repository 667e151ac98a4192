#!/usr/bin/env bash
# Fails, naming each finding, when clang-tidy (.clang-tidy at the top: the checks and why some are
# left out) reports anything in the production code: every C++ file the plain build compiles,
# outside tests/ and generated files. Run it after a build of build/ (scripts/build.sh): clang-tidy
# reads build/compile_commands.json and the headers the build generates. The version is pinned:
# another clang-tidy has other checks and reports other things.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_tidy=${CLANG_TIDY:-clang-tidy-14}
build_dir=build
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "check-tidy: no $build_dir/compile_commands.json: build first (scripts/build.sh)"
  exit 1
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# A unity build (CMAKE_UNITY_BUILD, the default) compiles generated files that #include a batch
# of sources. Each source is linted on its own, as a file that must compile alone, with its
# batch's command: the database clang-tidy reads has one entry per source.
mkdir "$logs/db"
awk '
  function flush(   n, i, line, path, at) {
    if (file !~ /\/Unity\/unity_[0-9]+_cxx\.cxx$/) { printf "%s", entry; return }
    while ((getline line < file) > 0) {
      if (line !~ /^#include "/) continue
      path = substr(line, 11, length(line) - 11)
      at = index(command, file)
      printf "{\n%s\n  \"command\": \"%s%s%s\",\n  \"file\": \"%s\"\n},\n", directory,
        substr(command, 1, at - 1), path, substr(command, at + length(file)), path
    }
    close(file)
  }
  /^\{$/ { entry = ""; file = ""; command = ""; directory = "" }
  { entry = entry $0 "\n" }
  /^  "directory": / { directory = $0 }
  /^  "command": / { command = substr($0, 15, length($0) - 16) }
  /^  "file": / { file = substr($0, 12, length($0) - 12) }
  /^\},?$/ { flush() }
  /^\[$/ { print }
  END { print "]" }' "$build_dir/compile_commands.json" |
  sed -z 's/},\n]\n*$/}\n]\n/' >"$logs/db/compile_commands.json"

# The sources git tracks (so nothing generated) that the build compiles (so each has its flags).
compiled=$(sed -n 's|^ *"file": "'"$PWD"'/\(.*\)",\{0,1\}$|\1|p' "$logs/db/compile_commands.json")
mapfile -t files < <(git ls-files '*.cpp' ':!:tests/' | grep -Fx -f <(printf '%s\n' "$compiled"))
# `scripts/check-tidy.sh FILE...` lints only those of them (paths from the top of the repository).
if (($#)); then
  mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -Fx -f <(printf '%s\n' "$@"))
fi
# None at all means a mismatch (a build configured elsewhere), not a clean tree.
if ((${#files[@]} == 0)); then
  echo "check-tidy: no file to lint (is $build_dir configured from $PWD?)"
  exit 1
fi

started=$SECONDS
# One log per file, so that parallel runs do not interleave their lines. A run that fails without
# a finding (a file clang cannot parse) leaves a .failed mark and fails the check too. The flags
# are GCC's: clang is told to pass over warning options it does not know (-Wno-subobject-linkage).
export clang_tidy logs
# shellcheck disable=SC2016  # the inner sh expands them
printf '%s\0' "${files[@]}" | xargs -0 -P"$(nproc)" -n1 sh -c '
  log=$logs/$(printf "%s" "$1" | tr / _)
  "$clang_tidy" -p "$logs/db" --quiet --extra-arg=-Wno-unknown-warning-option "$1" >"$log" 2>&1 || touch "$log.failed"' sh

# A header's finding shows once per file that includes it: count each place once.
mapfile -t findings < <(cat "$logs"/* 2>/dev/null |
  sed -n 's|^'"$PWD"'/||; /^[^ ]*:[0-9]*:[0-9]*: \(warning\|error\): /p' | sort -u)
failed=$(find "$logs" -name '*.failed' | wc -l)
echo "check-tidy: ${#files[@]} files, ${#findings[@]} findings ($((SECONDS - started)) s)"
if ((${#findings[@]})); then
  printf 'check-tidy: %s\n' "${findings[@]}" | head -40
  echo "check-tidy: fix them (or, for a false positive, NOLINT(check) with the reason beside it)"
  exit 1
fi
if ((failed)); then
  echo "check-tidy: clang-tidy failed on $failed files without a finding; the first one says:"
  first=$(find "$logs" -name '*.failed' | head -1)
  grep -v ' warnings\{0,1\} generated\.$' "${first%.failed}" | head -20
  exit 1
fi
