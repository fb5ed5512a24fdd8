#!/usr/bin/env bash
# deps.sh -- makes sure the Debian packages and commands the build and the local stack need
# are present, and the packages given as arguments (tools/bench/deps.sh: make bench's own).
# Installs what is missing when run as root; otherwise prints the sudo command.
# Relies on dpkg-query and apt-get (Debian 12).
set -euo pipefail

packages=(
    g++ make curl jq b3sum python3
    libcurl4-openssl-dev libunistring-dev
    libfcgi-dev rapidjson-dev libpq-dev libssl-dev libhiredis-dev libsodium-dev
    librust-blake3-dev libgtest-dev libbenchmark-dev
    postgresql postgresql-contrib redis-server nginx wrk
)
# make bench draws its plots (docs/*.svg) with gnuplot.
packages+=(gnuplot-nox)
# The browser suite (tests/browser) drives Debian's Chromium; no browser is ever downloaded.
packages+=(chromium)
# Scale-out (issue 18): handler metrics (prometheus-cpp), and for `make test-cluster`
# pg_auto_failover (monitor, primary, standby) and network namespaces (iproute2).
packages+=(prometheus-cpp-dev postgresql-15-auto-failover pg-auto-failover-cli iproute2)
# TLS (issue 26): `make run POUCH_TLS=1` and the tls suite make a certificate and probe the
# protocols with the openssl command.
packages+=(openssl)
# make deb and its test (issue 26, tools/deb): Debian's packaging tools and checker, and
# systemd's systemctl and systemd-analyze (a container may lack them; nothing is started).
packages+=(debhelper lintian systemd)
# Backups (issue 26): pgBackRest, with WAL archiving (pouchctl backup/restore, the restore
# drill of tests/faults).
packages+=(pgbackrest)
# S3 blobs (issue 27): `make test-cluster` and `make bench` start a single-host Ceph (one mon,
# one OSD, one radosgw; tools/stack/ceph.sh). ceph-common brings ceph-authtool, monmaptool and
# the ceph CLI; radosgw brings radosgw-admin. No mgr: S3 does not need it.
packages+=(ceph-mon ceph-osd radosgw ceph-common)
packages+=("$@")

# One dpkg-query for all of them keeps `make run` fast when nothing is missing. A package that
# dpkg has never heard of makes dpkg-query exit 1 with a message on stderr; its missing line
# is what tells us, so both are ignored.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null || true)

missing=()
for pkg in "${packages[@]}"; do
    if ! grep -qE "^${pkg//+/\\+}(:[a-z0-9]+)? ii" <<<"$installed"; then
        missing+=("$pkg")
    fi
done

# node and npm may come from a non-Debian build (it conflicts with Debian's npm package), so
# the commands decide, not the packages.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
fi

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "deps: missing: ${missing[*]}" >&2
if ((EUID != 0)); then
    echo "deps: run this, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y "${missing[@]}"
echo "deps: installed ${missing[*]}" >&2
