#!/bin/sh
# run.sh -- the interop suite: installs the pinned npm packages (jose, canonicalize,
# @noble/hashes, @noble/curves, @hpke/core) into a git-ignored folder, then runs interop.mjs
# against pouchctl and pouch-interop-verify, vectors.mjs: docs/client-format-vectors.json
# against the web app's crypto module (clients/web, installed by `make build`) and independent
# code, and hpke.mjs: the C++ HPKE against @hpke/core through pouch-testweb's HPKE driver.
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
if ! command -v node >/dev/null 2>&1; then
    echo "FAIL setup: node is not installed"
    exit 1
fi

# Node trusts only its own CA list unless told otherwise; add the system's, so a registry
# reached through a TLS proxy whose CA is installed there (ca-certificates) works for every
# user, not only one whose environment already points Node at it.
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi

# Reinstall only when the lock file changed; npm ci installs exactly what it pins.
mkdir -p "$node_dir"
if [ ! -d "$node_dir/node_modules" ] || ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json"; then
    cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
    if ! npm ci --no-audit --no-fund --loglevel=error --prefix "$node_dir" >"$node_dir/npm.log" 2>&1; then
        echo "FAIL setup: npm ci failed, see $node_dir/npm.log"
        exit 1
    fi
fi
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
exit $status
