#!/usr/bin/env bash
# run.sh -- `make test-upgrade`: an upgrade from the previous release's schema and data to
# HEAD, walked on the real path (docs/OPERATIONS.md "Upgrade"). There are no release tags, so
# the previous release is the mainline revision just before the newest migration of sql/
# arrived (POUCH_UPGRADE_FROM=<commit> picks another). Its binaries are built in a git
# worktree under build/upgrade/<commit> (kept: a second run reuses them). Then:
#   1. that revision's stack (its handlers, CLI, pouch-testweb and migrations; this checkout's
#      tools/stack/lib.sh and nginx site) and its CLI write data: a web account, two devices,
#      a pushed folder (inline files and a chunked one), a web upload, a share link, cursors;
#   2. its handlers stop; the tables are dumped;
#   3. a migration that fails half-way (injected into a copy of HEAD's sql/, sorted before
#      the new ones) must leave the schema, schema_migrations and the data as they were;
#   4. HEAD's `pouchctl migrate` runs; the rows that existed (their columns from before) are
#      compared with the dump: artifacts, revisions, key envelopes, shares, cursors and more;
#   5. HEAD's handlers start; HEAD's CLI, with the old devices' configuration, syncs on (a
#      new commit travels both ways), a new device pulls byte-identical files, the share link
#      still opens, and a failing migration on HEAD's schema changes nothing either.
# Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on any failure.
#   POUCH_UPGRADE_FROM=<commit>   the revision to upgrade from
#   POUCH_KEEP_VAR=1              keeps the stack directory
set -euo pipefail
cd "$(dirname "$0")/../.."
export LC_ALL=C.UTF-8
HEAD_ROOT=$PWD
HEAD_BUILD=${BUILD:-build}
[[ $HEAD_BUILD == /* ]] || HEAD_BUILD=$HEAD_ROOT/$HEAD_BUILD

# --- the previous release, built once per commit ----------------------------------------------

# The newest migration of HEAD and the first-parent commit that brought it: its first parent
# is the last mainline revision with the migration set before it.
newest=$(git ls-tree --name-only HEAD sql/ | grep '\.sql$' | sort | tail -n 1)
brought=$(git log --first-parent --diff-filter=A --format=%H -1 HEAD -- "$newest")
if ! FROM=$(git rev-parse --verify -q "${POUCH_UPGRADE_FROM:-$brought^1}^{commit}"); then
    echo "upgrade: no commit '${POUCH_UPGRADE_FROM:-$brought^1}' (the test needs the history: a full clone)" >&2
    exit 1
fi
OLD_SRC=$HEAD_ROOT/build/upgrade/$FROM
OLD_BUILD=$OLD_SRC/build
echo "upgrade: from $(git log -1 --format='%h (%ad, %s)' --date=short "$FROM" | cut -c1-110)"
echo "upgrade: its migrations end at $(git ls-tree --name-only "$FROM" sql/ | grep '\.sql$' | sort | tail -n 1); HEAD's at $newest"

if [[ ! -f $OLD_SRC.built ]]; then
    if [[ ! -d $OLD_SRC ]]; then
        git worktree prune
        git worktree add --detach "$OLD_SRC" "$FROM" >/dev/null
    fi
    groups=$(git ls-tree --name-only "$FROM" handlers/ | xargs -n1 basename)
    targets=(build/bin/pouchctl build/bin/pouch build/bin/pouch-testweb)
    for g in $groups; do targets+=("build/bin/pouch-$g"); done
    started=$SECONDS
    echo "upgrade: building $FROM (handlers, pouchctl, pouch, pouch-testweb; no web app)"
    if ! nice make -C "$OLD_SRC" -j2 "${targets[@]}" >"$OLD_SRC.build.log" 2>&1; then
        tail -n 20 "$OLD_SRC.build.log" >&2
        echo "upgrade: the build of $FROM failed (log: $OLD_SRC.build.log)" >&2
        exit 1
    fi
    echo "$((SECONDS - started)) s" >"$OLD_SRC.built"
    echo "upgrade: built in $((SECONDS - started)) s (kept in $OLD_SRC)"
else
    echo "upgrade: reusing the build in $OLD_SRC (built in $(cat "$OLD_SRC.built"))"
fi
[[ -x $HEAD_BUILD/bin/pouchctl && -x $HEAD_BUILD/bin/pouch && -x $HEAD_BUILD/bin/pouch-testweb ]] ||
    { echo "upgrade: HEAD's binaries are missing in $HEAD_BUILD (make build)" >&2; exit 1; }

# --- the old stack ----------------------------------------------------------------------------

# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh
UP_VAR=$(mktemp -d /tmp/pouch-upgrade.XXXXXX)
cleanup() {
    stack_stop
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then stack_say "kept $UP_VAR"; else rm -rf "$UP_VAR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off

http_port=""
stack_free_port http_port
BUILD=$OLD_BUILD stack_init "$UP_VAR" "$http_port" test
STACK_STARTED=1
stack_stop_leftovers
stack_start_postgres
stack_start_redis
(cd "$OLD_SRC" && POUCH_DATABASE_URL=$STACK_DATABASE_URL "$OLD_BUILD/bin/pouchctl" migrate --dir "$OLD_SRC/sql") >&2 ||
    stack_die "the old revision's migrations failed"
stack_start_handlers
stack_start_nginx nginx "$http_port" off
stack_write_env
stack_export_client_env

# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
trap 'rm -rf "$SMOKE_TMP"; cleanup' EXIT
DEVICES=$UP_VAR/devices
# shellcheck source=tests/lib/devices.sh
source tests/lib/devices.sh
same_tree() { diff -r "$1" "$2" >/dev/null; }
A=$UP_VAR/A B=$UP_VAR/B
mkdir -p "$A" "$B"

# --- 1. data written by the old revision ------------------------------------------------------

web_account || smoke_fail "the old pouch-testweb made no account"
login laptop
login desk
echo "hello from before the upgrade" >"$A/hello.txt"
mkdir -p "$A/notes/deep"
printf 'α and ω\n' >"$A/notes/deep/greek.md"
: >"$A/empty.txt"
head -c $((6 * 1024 * 1024)) /dev/urandom >"$A/big.bin"
dev laptop push "$A"
expect_true "the old CLI pushes ($RC: $ERR)" test "$RC" = 0
dev desk sync "$B"
expect_true "the old CLI's second device syncs ($RC: $ERR)" test "$RC" = 0
expect_true "and holds the same files" same_tree "$A" "$B"
echo "put by the browser" >"$UP_VAR/web.txt"
web put web.txt --file "$UP_VAR/web.txt" >/dev/null || smoke_fail "the old pouch-testweb put failed"
dev laptop sync "$A"
dev desk sync "$B"
expect_true "both devices hold the browser's file" same_tree "$A" "$B"
expect_true "and it is there" test "$(cat "$A/web.txt" 2>/dev/null)" = "put by the browser"
SESSION=$(jq -r .session_token "$DEVICES/web/web.json")
SHARE=$(cat /proc/sys/kernel/random/uuid)
req POST "/v1/pouches/$POUCH_ID/shares" "$(jq -nc --arg i "$SHARE" '{id:$i,bundle:"c2VhbGVkLWJ1bmRsZQ",label_enc:"bGFiZWw"}')" \
    -H "Authorization: Bearer $SESSION"
expect_status 201
req GET "/v1/shares/$SHARE"
expect_status 200
SHARE_BEFORE=$(json .data)
HW_BEFORE=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH_ID'")
chunks=$(sql "SELECT count(*) FROM revisions, unnest(blob_ids) WHERE pouch_id = '$POUCH_ID'")
expect_true "chunks stored: $chunks (want some)" test "$chunks" -gt 0
expect_true "both devices have cursors" \
    test "$(sql "SELECT count(*) FROM device_cursors WHERE pouch_id = '$POUCH_ID' AND acked_seq > 0")" = 2
check the_old_revision_writes_devices_files_chunks_a_share_and_cursors

# --- 2. the old handlers stop; what is stored ----------------------------------------------------

stack_stop_handlers
TABLES="users storage_accounts members roster_entries devices pouches key_envelopes artifacts revisions
    events device_cursors commit_log blobs shares pouch_access access_statements key_grants
    account_identities identity_envelopes"
# dump DIR: each table's rows (the columns it had before the upgrade), sorted, one file each.
dump() {
    local t cols
    mkdir -p "$1"
    for t in $TABLES; do
        cols=$(cat "$UP_VAR/cols/$t")
        psql "$POUCH_DATABASE_URL" -XqAt -c "COPY (SELECT $cols FROM $t) TO STDOUT" | sort >"$1/$t"
    done
}
mkdir -p "$UP_VAR/cols"
for t in $TABLES; do
    sql "SELECT string_agg(quote_ident(column_name), ',' ORDER BY ordinal_position) FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = '$t'" >"$UP_VAR/cols/$t"
    [[ -s $UP_VAR/cols/$t ]] || smoke_fail "the old schema has no table $t"
done
dump "$UP_VAR/before"
# The schema as pg_dump writes it, without comments and the \restrict lines (a random key each
# run).
schema() { pg_dump --schema-only --no-owner "$POUCH_DATABASE_URL" | grep -Ev '^(--|\\(un)?restrict )'; }
migrations() { sql "SELECT version FROM schema_migrations ORDER BY version" | paste -sd ' '; }
schema >"$UP_VAR/schema-before"
MIGRATIONS_BEFORE=$(migrations)
rows_before=$(cat "$UP_VAR"/before/* | wc -l)
echo "  (stored before the upgrade: $rows_before rows; migrations $MIGRATIONS_BEFORE)"
check the_old_handlers_stop_and_the_tables_are_dumped

# --- 3. a migration that fails half-way changes nothing ---------------------------------------

# fail_migration DIR NAME: a copy of HEAD's sql/ in DIR plus NAME.sql that creates a table,
# adds a column, writes rows and changes one, then fails.
fail_migration() {
    rm -rf "$1"
    cp -r "$HEAD_ROOT/sql" "$1"
    cat >"$1/$2.sql" <<'SQL'
-- Injected by tests/upgrade/run.sh: it succeeds half-way, then fails.
CREATE TABLE upgrade_probe (id int PRIMARY KEY);
INSERT INTO upgrade_probe VALUES (1), (2);
ALTER TABLE pouches ADD COLUMN upgrade_probe int NOT NULL DEFAULT 7;
UPDATE users SET email = 'changed.' || email;
SELECT 1 / (SELECT count(*) - count(*) FROM upgrade_probe);
SQL
}
# The newest old migration plus a suffix sorts after it and before HEAD's new ones.
bad=$(git ls-tree --name-only "$FROM" sql/ | grep '\.sql$' | sort | tail -n 1)
bad=$(basename "$bad" .sql)5_fails_half_way
fail_migration "$UP_VAR/sql-bad" "$bad"
rc=0
POUCH_DATABASE_URL=$STACK_DATABASE_URL "$HEAD_BUILD/bin/pouchctl" migrate --dir "$UP_VAR/sql-bad" \
    >"$UP_VAR/bad.out" 2>"$UP_VAR/bad.err" || rc=$?
expect_true "pouchctl migrate with the failing $bad exits 1 ($rc: $(cat "$UP_VAR/bad.err"))" test "$rc" = 1
expect_true "and names it and the error" grep -q "$bad: .*division by zero" "$UP_VAR/bad.err"
expect_true "schema_migrations unchanged ($(migrations))" test "$(migrations)" = "$MIGRATIONS_BEFORE"
schema >"$UP_VAR/schema-bad"
expect_true "the schema unchanged ($(diff "$UP_VAR/schema-before" "$UP_VAR/schema-bad" | head -c 300))" \
    cmp -s "$UP_VAR/schema-before" "$UP_VAR/schema-bad"
dump "$UP_VAR/after-bad"
expect_true "the data unchanged ($(diff -r "$UP_VAR/before" "$UP_VAR/after-bad" | head -c 300))" \
    diff -r "$UP_VAR/before" "$UP_VAR/after-bad"
check a_migration_that_fails_half_way_leaves_the_old_database_as_it_was

# --- 4. HEAD's migrations ---------------------------------------------------------------------

rc=0
POUCH_DATABASE_URL=$STACK_DATABASE_URL "$HEAD_BUILD/bin/pouchctl" migrate --dir "$HEAD_ROOT/sql" \
    >"$UP_VAR/migrate.out" 2>&1 || rc=$?
expect_true "HEAD's pouchctl migrate exits 0 ($rc: $(tr '\n' ' ' <"$UP_VAR/migrate.out"))" test "$rc" = 0
want=$(git ls-tree --name-only HEAD sql/ | grep '\.sql$' | xargs -n1 basename | sed 's/\.sql$//' | sort | paste -sd ' ')
expect_true "schema_migrations holds HEAD's migrations ($(migrations))" test "$(migrations)" = "$want"
dump "$UP_VAR/after"
expect_true "every row stored before is there unchanged ($(diff -r "$UP_VAR/before" "$UP_VAR/after" | head -c 300))" \
    diff -r "$UP_VAR/before" "$UP_VAR/after"
for t in artifacts revisions key_envelopes shares device_cursors; do
    expect_true "$t: $(wc -l <"$UP_VAR/after/$t") rows (want some)" test -s "$UP_VAR/after/$t"
done
check every_artifact_revision_envelope_share_and_cursor_survives_the_migrations

# --- 5. HEAD's handlers and CLI ---------------------------------------------------------------

STACK_BUILD=$HEAD_BUILD
[[ $STACK_EXEC == "$STACK_DIR/bin" ]] || STACK_EXEC=$HEAD_BUILD/bin
export POUCHCTL=$HEAD_BUILD/bin/pouchctl
POUCH=$HEAD_BUILD/bin/pouch TESTWEB=$HEAD_BUILD/bin/pouch-testweb
stack_start_handlers
req GET /v1/health
expect_status 200
req GET "/v1/shares/$SHARE"
expect_status 200
expect_true "the share link opens with what it held ($(json .data))" test "$(json .data)" = "$SHARE_BEFORE"
check heads_handlers_serve_the_migrated_database

dev desk sync "$B"
expect_true "HEAD's CLI syncs with the old device's configuration ($RC: $ERR)" test "$RC" = 0
expect_true "and nothing changed" same_tree "$A" "$B"
echo "written after the upgrade" >"$B/after.txt"
printf 'x' >>"$B/notes/deep/greek.md"
dev desk sync "$B"
expect_true "a new commit after the upgrade ($RC: $ERR)" test "$RC" = 0
dev laptop sync "$A"
expect_true "the other old device gets it ($RC: $ERR)" test "$RC" = 0
expect_true "both folders agree" same_tree "$A" "$B"
login phone
D=$UP_VAR/D
mkdir -p "$D"
dev phone pull "$D"
expect_true "a device enrolled after the upgrade pulls ($RC: $ERR)" test "$RC" = 0
expect_true "byte-identical files, the pre-upgrade chunked file among them" same_tree "$A" "$D"
expect_true "the browser's file too" test "$(web get web.txt 2>/dev/null)" = "put by the browser"
expect_true "the new device's cursor is at the pouch's high water" \
    test "$(sql "SELECT count(*) FROM device_cursors c JOIN pouches p ON p.id = c.pouch_id
                 WHERE c.pouch_id = '$POUCH_ID' AND c.device_id = '$(device_id phone)' AND c.acked_seq = p.high_water")" = 1
expect_true "the old devices' cursors moved past where they were" \
    test "$(sql "SELECT count(*) FROM device_cursors WHERE pouch_id = '$POUCH_ID' AND acked_seq > $HW_BEFORE")" -ge 2
check heads_cli_syncs_on_from_the_old_devices_and_a_new_one

stack_stop_handlers
schema >"$UP_VAR/schema-head"
MIGRATIONS_HEAD=$(migrations)
dump "$UP_VAR/head"
fail_migration "$UP_VAR/sql-bad-head" 999_fails_half_way
rc=0
POUCH_DATABASE_URL=$STACK_DATABASE_URL "$HEAD_BUILD/bin/pouchctl" migrate --dir "$UP_VAR/sql-bad-head" \
    >/dev/null 2>"$UP_VAR/bad-head.err" || rc=$?
expect_true "a failing migration on HEAD's schema exits 1 ($rc)" test "$rc" = 1
expect_true "schema_migrations unchanged" test "$(migrations)" = "$MIGRATIONS_HEAD"
schema >"$UP_VAR/schema-head-bad"
expect_true "the schema unchanged" cmp -s "$UP_VAR/schema-head" "$UP_VAR/schema-head-bad"
dump "$UP_VAR/head-bad"
expect_true "the data unchanged" diff -r "$UP_VAR/head" "$UP_VAR/head-bad"
check a_migration_that_fails_half_way_on_heads_schema_changes_nothing

echo "$SMOKE_PASSED passed, $SMOKE_FAILED failed"
((SMOKE_FAILED == 0))
