#!/bin/sh
# run.sh -- the browser suite: installs the pinned playwright-core (no browser download: it
# drives Debian's /usr/bin/chromium, from `make deps`) into a git-ignored folder, then runs
# run.mjs against the test stack. Prints `PASS name` / `FAIL name: detail`, exits 1 on any
# failure. Env: POUCH_URL, POUCHCTL, POUCH_DATABASE_URL (from test.sh), BUILD,
# POUCH_BROWSER_OUT (screenshots; default BUILD/browser-screenshots).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/browser"
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
node_dir="$build/browser-node"

if [ ! -x /usr/bin/chromium ]; then
    echo "FAIL setup: /usr/bin/chromium is missing (make deps installs Debian's chromium)"
    exit 1
fi
if [ ! -f "$build/web/index.html" ] || [ ! -f "$root/clients/web/node_modules/.package-lock.json" ]; then
    echo "FAIL setup: the web app is not built (make build)"
    exit 1
fi
# playwright-core must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# shellcheck source=tests/lib/node_env.sh
. "$root/tests/lib/node_env.sh"
node_env_install "$here" "$node_dir" || exit 1
cp "$here/run.mjs" "$here/cli.mjs" "$here/sharing.mjs" "$node_dir/"

export POUCH_ROOT="$root"
export POUCH_BROWSER_OUT="${POUCH_BROWSER_OUT:-$build/browser-screenshots}"
rm -rf "$POUCH_BROWSER_OUT"
exec node "$node_dir/run.mjs"
