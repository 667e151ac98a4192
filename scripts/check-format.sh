#!/usr/bin/env bash
# Fails, naming the files, when any C or C++ file in the repository differs from what
# clang-format (.clang-format at the top) makes of it. `scripts/check-format.sh --fix` rewrites
# them instead. The version is pinned: another clang-format formats a few constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format-14}
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [ "${1:-}" = "--fix" ]; then
  "$clang_format" -i "${files[@]}"
  exit 0
fi
mapfile -t differing < <("$clang_format" --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u)
if ((${#differing[@]})); then
  echo "check-format: ${#differing[@]} of ${#files[@]} files differ from $clang_format's output:"
  printf '  %s\n' "${differing[@]}" | head -40
  echo "check-format: run scripts/check-format.sh --fix"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
