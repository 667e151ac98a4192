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

# The sources git tracks (so nothing generated) that the build compiles (so each has its flags).
compiled=$(sed -n 's|^ *"file": "'"$PWD"'/\(.*\)",\{0,1\}$|\1|p' "$build_dir/compile_commands.json")
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
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# One log per file, so that parallel runs do not interleave their lines. A run that fails without
# a finding (a file clang cannot parse) leaves a .failed mark and fails the check too.
export clang_tidy build_dir logs
# shellcheck disable=SC2016  # the inner sh expands them
printf '%s\0' "${files[@]}" | xargs -0 -P"$(nproc)" -n1 sh -c '
  log=$logs/$(printf "%s" "$1" | tr / _)
  "$clang_tidy" -p "$build_dir" --quiet "$1" >"$log" 2>&1 || touch "$log.failed"' sh

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
