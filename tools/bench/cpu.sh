# shellcheck shell=bash
# cpu.sh -- the machine's CPU time for the bench's "CPU per request / per object" rows, sourced by
# tools/bench/run.sh and tools/bench/blobs.sh.

# busy_ticks: the machine's busy CPU time so far (/proc/stat's cpu line less idle and iowait),
# in clock ticks of all cores together.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
