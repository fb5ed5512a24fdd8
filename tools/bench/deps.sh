#!/usr/bin/env bash
# deps.sh -- what `make bench` needs beyond the build and the stack: the clients section's
# peer, Syncthing (Debian's syncthing), and GNU time for the CPU of a child. tools/stack/deps.sh
# checks them with its own list, installs what is missing when run as root, and otherwise
# prints the command. Debian 12.
set -euo pipefail
exec "$(dirname "$0")/../stack/deps.sh" syncthing time b3sum python3 openssl
