#!/usr/bin/env bash
# Installs everything sprof needs to build, run and test, from Debian 12's packages only.
# Idempotent: a machine that already has every package skips apt entirely.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libboost1.81-dev        # Asio + Beast with message_generator (1.74 lacks it)
  libsimdjson-dev         # symbolication request parsing
  libdw-dev libelf-dev    # elfutils: CFI, DWARF, symbols
  libdebuginfod-dev       # elfutils' debuginfod client: debug info and binaries by build-id
  elfutils                # eu-addr2line, eu-readelf for tests and benchmarks
  debuginfod              # a local debuginfod server for the debuginfod tests
  llvm-14                 # llvm-symbolizer-14: the symbol agreement test and benchmark
  libc6-dbg               # debug info for libc/libm (tests check libc function names)
  doctest-dev
  zlib1g-dev              # gzip output
  libcapstone-dev         # /asm/v1 disassembly
  libcli11-dev            # command-line parsing
  linux-perf              # baseline in benchmarks; perf.data files for the import tests
  binutils                # addr2line baseline
  heaptrack               # baseline in bench/run-heap.py only
  libjemalloc-dev libmimalloc-dev libgoogle-perftools-dev  # record --heap under other allocators (tests/targets/heap.cmake)
  clang-format-14         # scripts/check-format.sh (the plain test stage runs it)
  clang-tidy-14           # scripts/check-tidy.sh (the plain test stage runs it)
  chromium                # headless browser for the browser tests (tests/browser: flame graph SVG)
  clang-14 libclang-rt-14-dev  # libFuzzer targets and their sanitizers (tests/fuzz, the `fuzz` preset)
  # The toolchain matrix (tests/targets/unwind_matrix.cmake): programs built the ways users build
  clang lld mold          # clang++ -fuse-ld=lld / mold
  golang-go               # a Go program (tests/targets/languages.cmake)
  openjdk-17-jdk-headless # a Java program: JIT code, perf maps, frame pointers
)

missing=()
# The conformance tests need npm (the machine image ships Node + npm; Debian's own otherwise).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
