#!/usr/bin/env bash
# build.sh BUILD_DIR -- `make deb` (mk/deb.mk): stages the checkout (every file git knows or
# would add, with its modification time kept) in build/deb/pouch-sync-VERSION/ with
# tools/deb/debian as its debian/, writes debian/changelog with the version (tools/deb/version.sh),
# and runs dpkg-buildpackage -b -us -uc there with POUCH_BUILD=BUILD_DIR, the repository's
# own build directory: the top Makefile then finds its objects up to date and compiles only what
# changed (tools/deb/README.md). Then lintian, which must have nothing to say beyond the
# overrides. The packages land in build/deb/. Relies on git, dpkg-dev, debhelper and lintian.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/deb/build.sh BUILD_DIR (absolute)}
[[ $build == /* && -x $build/bin/pouchctl ]] || {
    echo "deb: $build/bin/pouchctl is missing: run make deb, not this script" >&2
    exit 1
}

version=$(tools/deb/version.sh)
out=build/deb
stage=$out/pouch-sync-$version
rm -rf "$out"
mkdir -p "$stage"

# Files as they are on disk (a deleted tracked file is skipped); tar keeps their times, so the
# dependency files in BUILD_DIR/obj find every source and header no newer than its object.
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [[ -f $f ]] && printf '%s\0' "$f"; done |
    tar -c --null -T - -f - | tar -x --no-same-owner -f - -C "$stage"
cp -r tools/deb/debian "$stage/debian"
# The Makefile includes BLAKE3's header from build/include (relative), made from Debian's copy.
mkdir -p "$stage/build/include"
cp -p build/include/blake3.h "$stage/build/include/"
# The web app's npm packages, installed by the Makefile's `npm ci` rule before this runs.
ln -s "$PWD/clients/web/node_modules" "$stage/clients/web/node_modules"

cat >"$stage/debian/changelog" <<CHANGELOG
pouch-sync ($version) unstable; urgency=medium

  * Built by make deb from commit $(git rev-parse HEAD).

 -- Pouch Sync maintainers <maintainers@users.noreply.a-seed-bdd61d89.example>  $(date -R)
CHANGELOG

(cd "$stage" && POUCH_BUILD=$build dpkg-buildpackage -b -us -uc -jauto)
rm -rf "$stage"
echo "deb: lintian"
lintian --fail-on error,warning \
    "$out"/pouch-sync_"${version}"_*.changes
ls -l "$out"/*.deb
