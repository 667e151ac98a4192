#!/bin/sh
# Installs playwright-core (the library that drives a browser over the DevTools protocol, without
# a browser of its own: the tests use Debian's /usr/bin/chromium) into a cache directory, for the
# browser tests. Idempotent: when the pinned version is installed it touches no network. Prints
# the directory on stdout.
#
# Usage: install-playwright.sh [DIR]   (default: $SPROF_BROWSER_TOOLS, else <repo>/.cache/browser-tools)
set -eu

PACKAGE="playwright-core"
VERSION="1.65.1"

script_dir=$(cd "$(dirname "$0")" && pwd)
repo_dir=$(cd "$script_dir/../.." && pwd)
dir=${1:-${SPROF_BROWSER_TOOLS:-$repo_dir/.cache/browser-tools}}

manifest="$dir/node_modules/$PACKAGE/package.json"
installed=""
if [ -f "$manifest" ]; then
  installed=$(sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$manifest" | head -n 1)
fi
if [ "$installed" != "$VERSION" ]; then
  command -v npm >/dev/null 2>&1 || { echo "install-playwright: npm not found" >&2; exit 1; }
  mkdir -p "$dir"
  # Serialise concurrent installs (several ctest runs may start at once).
  exec 9>"$dir/.install.lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  # A directory of its own: npm prunes what it did not install itself from a prefix.
  npm install --no-audit --no-fund --no-save --loglevel=error --prefix "$dir" \
    "$PACKAGE@$VERSION" >&2
  [ -f "$manifest" ] || { echo "install-playwright: $manifest missing after install" >&2; exit 1; }
fi

echo "$dir"
