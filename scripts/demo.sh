#!/usr/bin/env bash
# Quick start, part 1: install dependencies, build, record the bundled demo program and serve
# the profile (opens the Firefox Profiler; Ctrl-C stops the server). Arguments go to
# `sprof record`, e.g. `scripts/demo.sh --no-open`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target sprof sprof-demo
exec build/cli/sprof record "$@" -- build/demo/sprof-demo 2
