# node_env.sh -- the Node.js set-up the npm-based suites share (tests/interop, tests/openapi,
# tests/browser), in POSIX sh: node must be installed, Node also trusts the system's CA list,
# and a suite's pinned packages are installed with npm ci into its own git-ignored folder,
# again only when its package-lock.json changed. Failures print the suite's "FAIL setup: ..."
# line and return 1.
#
#   . "$root/tests/lib/node_env.sh"
#   node_env_install "$here" "$node_dir" || exit 1
# shellcheck shell=sh

# node_env_install SRC_DIR NODE_DIR: node on PATH, NODE_EXTRA_CA_CERTS exported, and
# SRC_DIR's package.json / package-lock.json installed into NODE_DIR/node_modules.
node_env_install() {
    if ! command -v node >/dev/null 2>&1; then
        echo "FAIL setup: node is not installed"
        return 1
    fi
    # Node trusts only its own CA list unless told otherwise; add the system's, so a registry
    # reached through a TLS proxy whose CA is installed there (ca-certificates) works for
    # every user, not only one whose environment already points Node at it.
    if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
        NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
        export NODE_EXTRA_CA_CERTS
    fi
    mkdir -p "$2" || {
        echo "FAIL setup: cannot create $2"
        return 1
    }
    # Reinstall only when the lock file changed; npm ci installs exactly what it pins.
    if [ ! -d "$2/node_modules" ] || ! cmp -s "$1/package-lock.json" "$2/package-lock.json"; then
        if ! cp "$1/package.json" "$1/package-lock.json" "$2/"; then
            echo "FAIL setup: cannot copy $1/package*.json to $2"
            return 1
        fi
        if ! npm ci --no-audit --no-fund --loglevel=error --prefix "$2" >"$2/npm.log" 2>&1; then
            # Without its lock the folder is not taken for current next time.
            rm -f "$2/package-lock.json"
            echo "FAIL setup: npm ci failed, see $2/npm.log"
            return 1
        fi
    fi
}
