#!/bin/sh
# run.sh -- the interop suite: installs the pinned npm packages (jose, canonicalize,
# @noble/hashes, @noble/curves, @hpke/core) into a git-ignored folder, then runs interop.mjs
# against pouchctl and pouch-interop-verify, vectors.mjs: docs/client-format-vectors.json
# against the web app's crypto module (clients/web, installed by `make build`) and independent
# code, pouchctl_sharing.mjs: pouchctl's sharing strings in that module, and hpke.mjs: the
# C++ HPKE against @hpke/core through pouch-testweb's HPKE driver.
# Prints `PASS name` / `FAIL name: detail`, exits 1 on any failure. Env: POUCHCTL,
# POUCH_INTEROP_VERIFY, POUCH_TESTWEB, INTEROP_SEED, INTEROP_CASES, INTEROP_HPKE_CASES, BUILD.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/interop"
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
POUCHCTL=$(abs "${POUCHCTL:-$build/bin/pouchctl}")
POUCH_INTEROP_VERIFY=$(abs "${POUCH_INTEROP_VERIFY:-$build/bin/pouch-interop-verify}")
POUCH_TESTWEB=$(abs "${POUCH_TESTWEB:-$build/bin/pouch-testweb}")
node_dir=$(abs "${INTEROP_NODE_DIR:-build/interop-node}")

for bin in "$POUCHCTL" "$POUCH_INTEROP_VERIFY" "$POUCH_TESTWEB"; do
    if [ ! -x "$bin" ]; then
        echo "FAIL setup: $bin is missing (make build)"
        exit 1
    fi
done
# shellcheck source=tests/lib/node_env.sh
. "$root/tests/lib/node_env.sh"
node_env_install "$here" "$node_dir" || exit 1
# ESM resolves packages next to the script, so the scripts run from the install folder.
cp "$here/interop.mjs" "$here/gen.mjs" "$here/vectors.mjs" "$here/hpke.mjs" "$node_dir/"

export POUCHCTL POUCH_INTEROP_VERIFY POUCH_TESTWEB
status=0
node "$node_dir/interop.mjs" || status=1
# The C++ HPKE against @hpke/core (issue 15).
node "$node_dir/hpke.mjs" || status=1

# The client-format vectors need the web app's own packages (make build installs them).
if [ ! -f "$root/clients/web/node_modules/.package-lock.json" ]; then
    echo "FAIL setup: clients/web/node_modules is missing (make build installs it)"
    exit 1
fi
POUCH_ROOT=$root node "$node_dir/vectors.mjs" || status=1
# The sharing strings pouchctl makes for the smoke tests, in the web module (node builtins only).
POUCH_ROOT=$root node "$here/pouchctl_sharing.mjs" || status=1
exit $status
