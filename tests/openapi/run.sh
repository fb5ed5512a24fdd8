#!/bin/sh
# run.sh -- the OpenAPI checks of `make test`: installs the pinned npm packages (@redocly/cli,
# ajv, ajv-formats, yaml) into a git-ignored folder, lints docs/openapi.yaml with Redocly's
# recommended-strict rules, then validates every JSON answer recorded in LOG (by the smoke and
# CLI suites, see tools/stack/test.sh) against it. Prints PASS/FAIL lines; exits 1 on failure.
#   tests/openapi/run.sh [LOG]
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/openapi"
node_dir="$root/${OPENAPI_NODE_DIR:-build/openapi-node}"
log=${1:-}

if ! command -v node >/dev/null 2>&1; then
    echo "FAIL setup: node is not installed"
    exit 1
fi
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
mkdir -p "$node_dir"
if [ ! -d "$node_dir/node_modules" ] || ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json"; then
    cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
    if ! npm ci --no-audit --no-fund --loglevel=error --prefix "$node_dir" >"$node_dir/npm.log" 2>&1; then
        echo "FAIL setup: npm ci failed, see $node_dir/npm.log"
        exit 1
    fi
fi
cp "$here/validate.mjs" "$node_dir/"

status=0
if out=$("$node_dir/node_modules/.bin/redocly" lint --config "$here/redocly.yaml" "$root/docs/openapi.yaml" 2>&1); then
    echo "PASS openapi.lint (redocly recommended-strict)"
else
    echo "FAIL openapi.lint: $(printf '%s\n' "$out" | grep -E '^\[[0-9]+\]|not expected|never used|must|should' | head -5 | tr '\n' ' ')"
    status=1
fi

if [ -n "$log" ]; then
    node "$node_dir/validate.mjs" "$root/docs/openapi.yaml" "$log" || status=1
else
    echo "# no answer log given: the answers are validated when the smoke suite runs first"
fi
exit $status
