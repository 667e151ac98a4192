#!/usr/bin/env bash
# Configures and builds sprof (RelWithDebInfo) into build/. Extra arguments go to cmake --build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SPROF_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$(nproc)" "$@"
