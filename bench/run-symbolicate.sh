#!/usr/bin/env bash
# Runs the symbolication benchmark and writes its table into docs/benchmarks.md under the
# "## Symbolication" heading (replacing that section only; other sections are left alone).
#
# usage: bench/run-symbolicate.sh [BUILD_DIR] [extra sprof_bench_symbolicate args...]
#   BUILD_DIR defaults to ./build. The large C++ binary is BUILD_DIR/cli/sprof when it exists
#   (override with --binary PATH), else the benchmark binary itself.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
shift || true

cmake --build "$build" --target sprof_bench_symbolicate >/dev/null
bench="$build/bench/sprof_bench_symbolicate"

args=("$@")
if [[ " ${args[*]-} " != *" --binary "* && -x "$build/cli/sprof" ]]; then
  args+=(--binary "$build/cli/sprof")
fi

table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$bench" "${args[@]}" >"$table"

doc="$repo/docs/benchmarks.md"
mkdir -p "$(dirname "$doc")"
[[ -f "$doc" ]] || printf '# sprof benchmarks\n' >"$doc"

section=$(
  printf '## Symbolication\n\n'
  printf 'Measured by `bench/run-symbolicate.sh` on %s (%s, %s CPUs), %s.\n\n' \
    "$(uname -sr)" "$(. /etc/os-release && echo "$PRETTY_NAME")" "$(nproc)" "$(date -u +%F)"
  cat "$table"
  printf '\nWhere names differ (the benchmark prints examples on stderr): several names for one\n'
  printf 'address (libc'"'"'s `__GI_` aliases, identical-code-folded libstdc++ functions), which\n'
  printf 'each tool breaks differently; and inline frames, where addr2line reports a different\n'
  printf 'inline depth or a qualified name where DWARF'"'"'s `DW_AT_name` is unqualified. The\n'
  printf 'machine is shared, so expect noise; compare medians, and min for best case.\n'
)

# Replace the existing "## Symbolication" section (up to the next "## " heading) or append it.
SECTION="$section" python3 - "$doc" <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
section = os.environ["SECTION"].rstrip("\n") + "\n"
pattern = re.compile(r"^## Symbolication\n.*?(?=^## |\Z)", re.S | re.M)
if pattern.search(text):
    text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip("\n") + "\n"
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w", encoding="utf-8").write(text)
PY
echo "updated $doc"
