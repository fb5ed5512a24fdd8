#!/bin/sh
# browser.sh -- the hostile suite's browser half: the pinned playwright-core of the browser suite
# (tests/browser/package*.json, no browser download: Debian's /usr/bin/chromium) installed into
# BUILD/browser-node, then tests/hostile/browser.mjs against the proxy (POUCH_URL). Prints PASS/FAIL
# lines and HOSTILE END. Env from tests/hostile/run.sh.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
node_dir="$build/browser-node"

if [ ! -x /usr/bin/chromium ]; then
    echo "FAIL hostile_browser_setup: /usr/bin/chromium is missing (make deps installs Debian's chromium)"
    echo "HOSTILE END"
    exit 1
fi
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# shellcheck source=tests/lib/node_env.sh
. "$root/tests/lib/node_env.sh"
node_env_install "$root/tests/browser" "$node_dir" || { echo "HOSTILE END"; exit 1; }
cp "$root/tests/hostile/browser.mjs" "$node_dir/hostile-browser.mjs"
export POUCH_ROOT="$root"
exec node "$node_dir/hostile-browser.mjs"
