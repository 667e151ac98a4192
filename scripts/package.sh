#!/usr/bin/env bash
# Builds sprof and its Debian package: build/sprof_<version>_<arch>.deb (see
# cmake/SprofPackaging.cmake). Install it with `sudo apt install ./build/sprof_*.deb`, which also
# installs the libraries it depends on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
(cd build && cpack -G DEB >/dev/null)
ls build/sprof_*.deb
