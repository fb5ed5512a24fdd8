#!/usr/bin/env bash
# restore_measure.sh -- how long a restore of N GiB takes on this machine (the figure of
# docs/OPERATIONS.md "Backup and restore"; not part of `make test`). Starts a durable stack of
# its own (tools/stack/lib.sh) with WAL archiving (stack_wal_archive), pushes a folder of
# random files with the real CLI (POUCH_MEASURE_MIB, default 1024, in 256 MiB files), fills a
# second database of the cluster with pgbench (POUCH_MEASURE_SCALE, default 32: about 500 MiB),
# takes a full `pouchctl backup`, pushes 64 MiB more (archived WAL and blobs only), deletes
# the data directory and the blobs, and times `pouchctl restore` and PostgreSQL's recovery;
# then a new folder pulled by the device must equal the pushed one byte for byte. Prints
# "FIGURES restore_measure {...}". Needs `make build`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LC_ALL=C.UTF-8
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

mib=${POUCH_MEASURE_MIB:-1024}
scale=${POUCH_MEASURE_SCALE:-32}
MEASURE_VAR=$(mktemp -d /var/tmp/pouch-measure.XXXXXX)
cleanup() {
    stack_stop
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then stack_say "kept $MEASURE_VAR"; else rm -rf "$MEASURE_VAR"; fi
}
trap cleanup EXIT
unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off
http_port=""
stack_free_port http_port
stack_init "$MEASURE_VAR" "$http_port" durable
stack_start
stack_export_client_env
stack_wal_archive 60
# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
trap 'rm -rf "$SMOKE_TMP"; cleanup' EXIT
DEVICES=$MEASURE_VAR/devices
# shellcheck source=tests/lib/devices.sh
source tests/lib/devices.sh
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
ctl() { (cd "$STACK_DIR" && stack_as "$STACK_BACKUP_PCTL" "$@" --config "$STACK_BACKUP_CONF" --blob-dir "$STACK_DIR/blobs"); }

# Room for the folder: the default plan (1 GiB, sql/002) of this stack only.
sql "UPDATE plans SET storage_bytes = 1099511627776 WHERE is_default" >/dev/null
web_account || stack_die "no web account"
login measure || stack_die "the login failed"
A=$MEASURE_VAR/A
mkdir -p "$A"
for ((i = 0; i < mib / 256; i++)); do head -c $((256 << 20)) /dev/urandom >"$A/part$i.bin"; done
t=$(date +%s.%N)
dev measure push "$A"
[[ $RC == 0 ]] || stack_die "push failed: $ERR"
push_s=$(secs_since "$t")
stack_createdb filler
"$PG_BIN/pgbench" -i -q -s "$scale" -h "$STACK_RUN" -p "$STACK_PG_PORT" -U pouch filler >/dev/null 2>&1
t=$(date +%s.%N)
ctl backup --type full >"$MEASURE_VAR/backup.out"
backup_s=$(secs_since "$t")
head -c $((64 << 20)) /dev/urandom >"$A/after-backup.bin"
dev measure push "$A"
[[ $RC == 0 ]] || stack_die "push after the backup failed: $ERR"
seg=$(sql "SELECT pg_walfile_name(pg_switch_wal())")
archived() { [[ $(sql "SELECT coalesce(last_archived_wal, '') >= '$seg' FROM pg_stat_archiver") == t ]]; }
retry 60 archived ||
    stack_die "segment $seg not archived"
blob_bytes=$(du -sb "$STACK_DIR/blobs" | cut -f1)
pg_bytes=$(du -sb "$STACK_DIR/pg" | cut -f1)
repo_bytes=$(du -sb "$STACK_DIR/backup/repo" | cut -f1)

stack_stop_handlers
(cd "$STACK_DIR" && stack_as "$PG_BIN/pg_ctl" stop -D "$STACK_DIR/pg" -m immediate -w) >/dev/null 2>&1 || true
wait "$STACK_PG_PID" 2>/dev/null || true
STACK_PG_PID=0
rm -rf "$STACK_DIR/pg" "$STACK_DIR/blobs"
mkdir -p "$STACK_DIR/pg" "$STACK_DIR/blobs"
chmod 700 "$STACK_DIR/pg"
stack_own "$STACK_DIR/pg" "$STACK_DIR/blobs"
sync
t=$(date +%s.%N)
ctl restore >"$MEASURE_VAR/restore.out"
restore_s=$(secs_since "$t")
stack_start_postgres 2>/dev/null
promoted() { [[ $(sql 'SELECT pg_is_in_recovery()' 2>/dev/null) == f ]]; }
retry 600 promoted || stack_die "still in recovery"
total_s=$(secs_since "$t")
stack_start_handlers
B=$MEASURE_VAR/B
mkdir -p "$B"
dev measure pull "$B"
same=no
if [[ $RC == 0 ]] && diff -r "$A" "$B" >/dev/null; then same=yes; fi
echo "FIGURES restore_measure $(jq -nc --argjson mib "$mib" --argjson scale "$scale" --arg push "$push_s" \
    --arg backup "$backup_s" --arg restore "$restore_s" --arg total "$total_s" --argjson blobs "$blob_bytes" \
    --argjson pg "$pg_bytes" --argjson repo "$repo_bytes" --arg same "$same" \
    '{pushed_mib:$mib, pgbench_scale:$scale, blob_bytes:$blobs, pg_data_bytes:$pg, repo_bytes:$repo,
      push_s:($push|tonumber), full_backup_s:($backup|tonumber), pouchctl_restore_s:($restore|tonumber),
      restore_and_recovery_s:($total|tonumber), pulled_folder_identical:$same}')"
[[ $same == yes ]]
