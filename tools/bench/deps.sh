#!/usr/bin/env bash
# deps.sh -- what `make bench` needs beyond tools/stack/deps.sh (the build and the stack): the
# clients section's peer, Syncthing (Debian's syncthing), and GNU time for the CPU of a child.
# Installs what is missing when run as root; otherwise prints the command. Debian 12.
set -euo pipefail

packages=(syncthing time b3sum python3 openssl)
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for pkg in "${packages[@]}"; do
    grep -qE "^${pkg}(:[a-z0-9]+)? ii" <<<"$installed" || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "bench deps: missing: ${missing[*]}" >&2
if ((EUID != 0)); then
    echo "bench deps: run this, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y "${missing[@]}"
echo "bench deps: installed ${missing[*]}" >&2
