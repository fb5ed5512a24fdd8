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

# shellcheck source=tests/lib/node_env.sh
. "$root/tests/lib/node_env.sh"
node_env_install "$here" "$node_dir" || exit 1
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
