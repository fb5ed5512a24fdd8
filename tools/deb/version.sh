#!/usr/bin/env bash
# version.sh -- the packages' version: tools/deb/VERSION (the release, raised by hand), then
# "+git" and the commit's date and short hash, so a later commit's package is an upgrade of an
# earlier one's (dpkg compares the date as a number; the date, unlike a commit count, is right
# in a shallow clone too). A working tree with uncommitted changes gets the same version as
# its commit. Example: 0.1.0+git20261127134500.be489d8
set -euo pipefail
cd "$(dirname "$0")/../.."
printf '%s+git%s.%s\n' "$(cat tools/deb/VERSION)" \
    "$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S)" \
    "$(git rev-parse --short=7 HEAD)"
