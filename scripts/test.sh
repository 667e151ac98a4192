#!/usr/bin/env bash
# Quick start, part 2: install dependencies, build everything and run the whole test suite
# (unit, integration and conformance tests; the conformance tests install the Firefox
# Profiler's CLI from npm themselves).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j2 "$@"
