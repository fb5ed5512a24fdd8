#!/usr/bin/env bash
# 51-blobs-gc.sh -- `pouchctl gc` and `pouchctl pouch reset-epoch` against the running stack
# (decisions §5.5, §5.2): expired reservations released, unreferenced blobs older than 24 h
# deleted (row, file and usage) while referenced and young ones stay, stray files and expired
# rows cleaned; a reset gives the pouch a new epoch and high_water 0. Ages are backdated with
# psql; revisions are inserted with psql. Relies on tests/smoke/lib.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"

sql() { psql "$POUCH_DATABASE_URL" -XtAq -c "$1"; }
new_uuid() { cat /proc/sys/kernel/random/uuid; }
run=$(date +%s%N)
blob_dir=$POUCH_VAR/blobs
export POUCH_BLOB_DIR=$blob_dir

signup() {
    req POST /v1/account/signup "$(jq -nc --arg e "$1.$run@example.com" '{email:$e,password:"correct horse battery"}')"
    [[ $STATUS == 201 ]] || { echo "FAIL setup_signup: $STATUS $BODY"; exit 1; }
    TOKEN=$(json .data.session_token)
    ACCOUNT=$(json .data.storage_account_id)
}
new_pouch() {
    local id
    id=$(new_uuid)
    sql "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ('$id', '$1', gen_random_uuid(), 1)"
    echo "$id"
}
make_blob() {
    head -c "$2" /dev/urandom >"$SMOKE_TMP/$1"
    b3sum --raw "$SMOKE_TMP/$1" | basenc --base64url | tr -d '='
}
# stored NAME SIZE: checks and uploads a new blob to dan's pouch; prints its id.
stored() {
    local id
    id=$(make_blob "$1" "$2")
    req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":[{\"id\":\"$id\",\"stored_size\":$2}]}" \
        -H "Authorization: Bearer $token"
    req PUT "/v1/pouches/$pouch/blobs/$id" "@$SMOKE_TMP/$1" -H 'Content-Type: application/octet-stream' \
        -H "Authorization: Bearer $token"
    [[ $STATUS == 201 ]] || { echo "FAIL setup_upload: $STATUS $BODY" >&2; exit 1; }
    echo "$id"
}
# reference POUCH ACCOUNT BLOB: a revision in that pouch naming the blob.
reference() {
    local member art rev
    member=$(new_uuid) art=$(new_uuid) rev=$(new_uuid)
    sql "BEGIN;
         INSERT INTO members (id, account_id, kind) VALUES ('$member', '$2', 'web');
         INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq) VALUES ('$1', '$art', '$rev', 1);
         INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, key_gen, envelope, envelope_hash,
                                signature, signer_member_id, stored_size, origin, blob_ids)
         VALUES ('$1', '$rev', '$art', 1, 'put', 1, 'e', 'h', 's', '$member', 0, 'web', ARRAY['$3']);
         COMMIT;"
}
backdate() { sql "UPDATE blobs SET created_at = now() - interval '25 hours' WHERE account_id = '$account' AND id = '$1'"; }
blob_row() { sql "SELECT count(*) FROM blobs WHERE account_id = '$account' AND id = '$1'"; }
usage() {
    req GET /v1/account "" -H "Authorization: Bearer $token"
    json ".data.usage.$1"
}
gc() { "$POUCHCTL" gc >"$SMOKE_TMP/gc.out" 2>&1; }

signup dan
token=$TOKEN
account=$ACCOUNT
pouch=$(new_pouch "$account")
signup eve
eve_account=$ACCOUNT
eve_pouch=$(new_pouch "$eve_account")

unreferenced=$(stored unreferenced 700)
referenced=$(stored referenced 800)
young=$(stored young 900)
elsewhere=$(stored elsewhere 600)  # named only by another account's revision
backdate "$unreferenced"
backdate "$referenced"
backdate "$elsewhere"
reference "$pouch" "$account" "$referenced"
reference "$eve_pouch" "$eve_account" "$elsewhere"
expired=$(make_blob expired 50)
req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":[{\"id\":\"$expired\",\"stored_size\":50}]}" \
    -H "Authorization: Bearer $token"
sql "UPDATE blob_reservations SET expires_at = now() - interval '1 second' WHERE account_id = '$account' AND blob_id = '$expired'"
mkdir -p "$blob_dir/$account" "$blob_dir/tmp"
stray="$blob_dir/$account/$(make_blob stray 10)"
cp "$SMOKE_TMP/stray" "$stray"
touch -d '2 days ago' "$stray"
fresh_stray="$blob_dir/$account/$(make_blob fresh 10)"
cp "$SMOKE_TMP/fresh" "$fresh_stray"
old_temp="$blob_dir/tmp/gc-test-$run"
: >"$old_temp"
touch -d '2 days ago' "$old_temp"
sql "INSERT INTO dpop_replay (jkt, jti, expires_at) VALUES ('gc-$run', 'old', now() - interval '1 minute'),
                                                           ('gc-$run', 'live', now() + interval '10 minutes')"
expect_true "usage before gc" test "$(usage stored_bytes)" = 3000

expect_true "gc exits 0 ($(cat "$SMOKE_TMP/gc.out" 2>/dev/null))" gc
expect_true "gc reports a released reservation" grep -Eq '^released [1-9][0-9]* expired reservations' "$SMOKE_TMP/gc.out"
expect_true "reservation row gone" \
    test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$account'")" = 0
check gc_releases_expired_reservations

expect_true "row deleted" test "$(blob_row "$unreferenced")" = 0
expect_true "file deleted" test ! -e "$blob_dir/$account/$unreferenced"
expect_true "row of a blob only another account references deleted" test "$(blob_row "$elsewhere")" = 0
expect_true "its file deleted" test ! -e "$blob_dir/$account/$elsewhere"
expect_true "blob_bytes lost 1300" \
    test "$(sql "SELECT blob_bytes FROM storage_accounts WHERE id = '$account'")" = 1700
expect_true "usage lost 1300" test "$(usage stored_bytes)" = 1700
expect_true "gc reports the deletions" grep -Eq '^deleted [1-9][0-9]* unreferenced blobs' "$SMOKE_TMP/gc.out"
check gc_deletes_unreferenced_old_blobs_row_file_and_usage

expect_true "referenced row kept" test "$(blob_row "$referenced")" = 1
expect_true "referenced file kept" test -f "$blob_dir/$account/$referenced"
expect_true "young row kept" test "$(blob_row "$young")" = 1
expect_true "young file kept" test -f "$blob_dir/$account/$young"
req GET "/v1/pouches/$pouch/blobs/$referenced" "" -H "Authorization: Bearer $token" 2>/dev/null
expect_status 200
expect_true "still downloadable" cmp -s "$SMOKE_TMP/referenced" "$SMOKE_TMP/body"
check gc_keeps_referenced_and_young_blobs

expect_true "old unrecorded file removed" test ! -e "$stray"
expect_true "young unrecorded file kept" test -e "$fresh_stray"
expect_true "old temporary file removed" test ! -e "$old_temp"
check gc_removes_stray_files_older_than_a_day
rm -f "$fresh_stray"

expect_true "expired replay entry deleted" \
    test "$(sql "SELECT string_agg(jti, ',') FROM dpop_replay WHERE jkt = 'gc-$run'")" = live
check gc_deletes_expired_replay_entries

req GET "/v1/pouches/$pouch/blobs/$unreferenced" "" -H "Authorization: Bearer $token"
expect_error 404 not_found
req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":[{\"id\":\"$unreferenced\",\"stored_size\":700}]}" \
    -H "Authorization: Bearer $token"
expect_json '.data.missing | join(",")' "$unreferenced"
req PUT "/v1/pouches/$pouch/blobs/$unreferenced" "@$SMOKE_TMP/unreferenced" \
    -H 'Content-Type: application/octet-stream' -H "Authorization: Bearer $token"
expect_status 201
expect_true "file back" cmp -s "$SMOKE_TMP/unreferenced" "$blob_dir/$account/$unreferenced"
check collected_blob_can_be_uploaded_again

expect_true "second gc exits 0" gc
expect_true "blob bytes unchanged by a second run" \
    test "$(sql "SELECT blob_bytes FROM storage_accounts WHERE id = '$account'")" = 2400
check gc_twice_changes_nothing_more

"$POUCHCTL" gc --help >"$SMOKE_TMP/help.out" 2>&1
expect_true "gc --help exits 0 and describes it" grep -q 'usage: pouchctl gc' "$SMOKE_TMP/help.out"
expect_true "gc with an unknown argument exits 2" sh -c '"$POUCHCTL" gc --bogus 2>/dev/null; test $? = 2'
check gc_help

# --- reset-epoch -------------------------------------------------------------------------------
old_epoch=$(sql "SELECT epoch FROM pouches WHERE id = '$pouch'")
sql "UPDATE pouches SET high_water = 2 WHERE id = '$pouch';
     INSERT INTO events (pouch_id, epoch, seq, kind) VALUES ('$pouch', '$old_epoch', 1, 'roster'),
                                                            ('$pouch', '$old_epoch', 2, 'roster')"
"$POUCHCTL" pouch reset-epoch "$pouch" >"$SMOKE_TMP/reset.out" || true
expect_true "reset exits 0 and reports it" grep -q "high_water 2 -> 0" "$SMOKE_TMP/reset.out"
new_epoch=$(sql "SELECT epoch FROM pouches WHERE id = '$pouch'")
expect_true "epoch changed" test "$new_epoch" != "$old_epoch"
expect_true "epoch is a uuid" test "${#new_epoch}" = 36
expect_true "high_water 0" test "$(sql "SELECT high_water FROM pouches WHERE id = '$pouch'")" = 0
expect_true "old epoch's events deleted" \
    test "$(sql "SELECT count(*) FROM events WHERE pouch_id = '$pouch'")" = 0
expect_true "artifacts and revisions stay" \
    test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$pouch'")" = 1
check reset_epoch_sets_a_new_epoch_and_high_water_zero

expect_true "unknown pouch exits 1" sh -c '"$POUCHCTL" pouch reset-epoch "$0" 2>/dev/null; test $? = 1' "$(new_uuid)"
expect_true "malformed id exits 2" sh -c '"$POUCHCTL" pouch reset-epoch not-a-uuid 2>/dev/null; test $? = 2'
expect_true "--help exits 0" sh -c '"$POUCHCTL" pouch --help | grep -q reset-epoch'
check reset_epoch_refuses_unknown_and_malformed_ids

smoke_done
