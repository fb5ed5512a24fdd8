#!/usr/bin/env bash
# 51-blobs-gc.sh -- `pouchctl gc` and `pouchctl pouch reset-epoch` against the running stack
# (decisions §5.5, §5.2): expired reservations released, unreferenced blobs older than 24 h
# deleted (row, file and usage) while blobs a commit references and young ones stay, stray
# files and expired rows cleaned; a reset gives the pouch a new epoch holding its renumbered history, and
# commits with the old epoch get 409. Ages are backdated with psql. Relies on
# tests/smoke/lib.sh and flows.sh (genesis and real commits).
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"
# shellcheck source=tests/smoke/blobstore.sh
source "$(dirname "$0")/blobstore.sh"

run=$(date +%s%N)
export POUCH_BLOB_DIR=$blob_dir

make_blob() {
    head -c "$2" /dev/urandom >"$SMOKE_TMP/$1"
    b3sum --raw "$SMOKE_TMP/$1" | basenc --base64url | tr -d '='
}
# stored TOKEN POUCH FILE SIZE: checks and uploads the file as a blob; prints its id.
stored() {
    local id
    id=$(b3sum --raw "$SMOKE_TMP/$3" | basenc --base64url | tr -d '=')
    req POST "/v1/pouches/$2/blobs/check" "{\"blobs\":[{\"id\":\"$id\",\"stored_size\":$4}]}" \
        -H "Authorization: Bearer $1"
    req PUT "/v1/pouches/$2/blobs/$id" "@$SMOKE_TMP/$3" -H 'Content-Type: application/octet-stream' \
        -H "Authorization: Bearer $1"
    [[ $STATUS == 201 ]] || { echo "FAIL setup_upload: $STATUS $BODY" >&2; exit 1; }
    echo "$id"
}
# commit_put TOKEN POUCH EPOCH MEMBER [BLOB]: commits a new artifact naming the blob; sets
# STATUS/BODY of the commit.
commit_put() {
    local body
    body=$(jq -nc --arg o "$(flow_uuid)" --arg e "$3" --arg a "$(flow_uuid)" --arg r "$(flow_uuid)" \
        --arg m "$4" --arg b "${5:-}" \
        '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,
          base_revision_id:null,key_gen:1,envelope:"envelope",signature:"sig",signer_member_id:$m,
          blob_ids:(if $b == "" then [] else [$b] end)}]}')
    req POST "/v1/pouches/$2/operations" "$body" -H "Authorization: Bearer $1"
}
backdate() { sql "UPDATE blobs SET created_at = now() - interval '25 hours' WHERE account_id = '$1' AND id = '$2'"; }
blob_row() { sql "SELECT count(*) FROM blobs WHERE account_id = '$account' AND id = '$1'"; }
blob_bytes() { sql "SELECT blob_bytes FROM storage_accounts WHERE id = '$account'"; }
usage() {
    req GET /v1/account "" -H "Authorization: Bearer $token"
    json ".data.usage.$1"
}
gc() { "$POUCHCTL" gc >"$SMOKE_TMP/gc.out" 2>&1; }

flow_user
token=$WEB_TOKEN account=$WEB_ACCOUNT pouch=$POUCH member=$WEB_MEMBER epoch=$EPOCH
flow_user
eve=$WEB_TOKEN eve_account=$WEB_ACCOUNT

make_blob unreferenced 700 >/dev/null
make_blob referenced 800 >/dev/null
make_blob young 900 >/dev/null
make_blob elsewhere 600 >/dev/null
unreferenced=$(stored "$token" "$pouch" unreferenced 700)
referenced=$(stored "$token" "$pouch" referenced 800)
young=$(stored "$token" "$pouch" young 900)
elsewhere=$(stored "$token" "$pouch" elsewhere 600)
# The same bytes in eve's account, referenced there only: dan's copy is still unreferenced.
stored "$eve" "$POUCH" elsewhere 600 >/dev/null
commit_put "$eve" "$POUCH" "$EPOCH" "$WEB_MEMBER" "$elsewhere"
expect_json '.data.results[0].status' applied
commit_put "$token" "$pouch" "$epoch" "$member" "$referenced"
expect_json '.data.results[0].status' applied
check setup_commits_reference_blobs
for id in "$unreferenced" "$referenced" "$elsewhere"; do backdate "$account" "$id"; done
backdate "$eve_account" "$elsewhere"
expired=$(make_blob expired 50)
req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":[{\"id\":\"$expired\",\"stored_size\":50}]}" \
    -H "Authorization: Bearer $token"
sql "UPDATE blob_reservations SET expires_at = now() - interval '1 second' WHERE account_id = '$account' AND blob_id = '$expired'"
# Made as the blob directory's owner (the handlers' user), never as root: on S3 the handler
# creates tmp/ only for an upload above 8 MiB, so it may not exist yet, and must stay writable.
for dir in "$blob_dir/$account" "$blob_dir/tmp"; do
    [[ -d $dir ]] || install -d -m 0750 -o "$(stat -c %u "$blob_dir")" -g "$(stat -c %g "$blob_dir")" "$dir"
done
# An object's age cannot be backdated in a bucket: there only the young stray is tried.
stray_id=$(make_blob stray 10)
blobstore_is_s3 || blob_object_put "$account" "$stray_id" "$SMOKE_TMP/stray"
blobstore_is_s3 || touch -d '2 days ago' "$blob_dir/$account/$stray_id"
fresh_id=$(make_blob fresh 10)
blob_object_put "$account" "$fresh_id" "$SMOKE_TMP/fresh"
old_temp="$blob_dir/tmp/gc-test-$run"
: >"$old_temp"
touch -d '2 days ago' "$old_temp"
# Replay rows are kept 5 minutes past their expiry (decisions §13).
sql "INSERT INTO dpop_replay (jkt, jti, expires_at) VALUES ('gc-$run', 'old', now() - interval '6 minutes'),
                                                           ('gc-$run', 'recent', now() - interval '4 minutes'),
                                                           ('gc-$run', 'live', now() + interval '10 minutes')"
usage_before=$(usage stored_bytes)
expect_true "blob bytes before gc" test "$(blob_bytes)" = 3000

gc_rc=0
gc || gc_rc=$?
expect_true "gc exits 0 ($(cat "$SMOKE_TMP/gc.out"))" test "$gc_rc" = 0
expect_true "gc reports a released reservation" grep -Eq '^released [1-9][0-9]* expired reservations' "$SMOKE_TMP/gc.out"
expect_true "reservation row gone" \
    test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$account'")" = 0
check gc_releases_expired_reservations

expect_true "row deleted" test "$(blob_row "$unreferenced")" = 0
expect_true "object deleted" test ! -e "$(blob_object "$account" "$unreferenced")"
expect_true "row of a blob only another account references deleted" test "$(blob_row "$elsewhere")" = 0
expect_true "its object deleted" test ! -e "$(blob_object "$account" "$elsewhere")"
expect_true "the other account's copy kept" \
    test "$(sql "SELECT count(*) FROM blobs WHERE account_id = '$eve_account' AND id = '$elsewhere'")" = 1
expect_true "its object kept" test -f "$(blob_object "$eve_account" "$elsewhere")"
expect_true "blob_bytes lost 1300" test "$(blob_bytes)" = 1700
expect_true "usage lost 1300" test "$(usage stored_bytes)" = $((usage_before - 1300))
expect_true "gc reports the deletions" grep -Eq '^deleted [1-9][0-9]* unreferenced blobs' "$SMOKE_TMP/gc.out"
check gc_deletes_unreferenced_old_blobs_row_file_and_usage

expect_true "referenced row kept" test "$(blob_row "$referenced")" = 1
expect_true "referenced object kept" test -f "$(blob_object "$account" "$referenced")"
expect_true "young row kept" test "$(blob_row "$young")" = 1
expect_true "young object kept" test -f "$(blob_object "$account" "$young")"
req GET "/v1/pouches/$pouch/blobs/$referenced" "" -H "Authorization: Bearer $token" 2>/dev/null
expect_status 200
expect_true "still downloadable" cmp -s "$SMOKE_TMP/referenced" "$SMOKE_TMP/body"
check gc_keeps_referenced_and_young_blobs

blobstore_is_s3 || expect_true "old unrecorded file removed" test ! -e "$(blob_object "$account" "$stray_id")"
expect_true "young unrecorded object kept" test -e "$(blob_object "$account" "$fresh_id")"
expect_true "old temporary file removed" test ! -e "$old_temp"
check gc_removes_stray_files_older_than_a_day
if blobstore_is_s3; then s3_curl DELETE "$account/$fresh_id" -o /dev/null; else rm -f "$blob_dir/$account/$fresh_id"; fi

expect_true "replay entry 6 minutes past expiry deleted, 4 minutes past kept" \
    test "$(sql "SELECT string_agg(jti, ',' ORDER BY jti) FROM dpop_replay WHERE jkt = 'gc-$run'")" = live,recent
check gc_deletes_replay_entries_five_minutes_past_expiry

req GET "/v1/pouches/$pouch/blobs/$unreferenced" "" -H "Authorization: Bearer $token"
expect_error 404 not_found
req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":[{\"id\":\"$unreferenced\",\"stored_size\":700}]}" \
    -H "Authorization: Bearer $token"
expect_json '.data.missing | join(",")' "$unreferenced"
req PUT "/v1/pouches/$pouch/blobs/$unreferenced" "@$SMOKE_TMP/unreferenced" \
    -H 'Content-Type: application/octet-stream' -H "Authorization: Bearer $token"
expect_status 201
expect_true "object back" cmp -s "$SMOKE_TMP/unreferenced" "$(blob_object "$account" "$unreferenced")"
check collected_blob_can_be_uploaded_again

expect_true "second gc exits 0" gc
expect_true "blob bytes unchanged by a second run" test "$(blob_bytes)" = 2400
check gc_twice_changes_nothing_more

"$POUCHCTL" gc --help >"$SMOKE_TMP/help.out" 2>&1
expect_true "gc --help exits 0 and describes it" grep -q 'usage: pouchctl gc' "$SMOKE_TMP/help.out"
expect_true "gc with an unknown argument exits 2" sh -c '"$POUCHCTL" gc --bogus 2>/dev/null; test $? = 2'
check gc_help

# --- reset-epoch -------------------------------------------------------------------------------
old_epoch=$epoch
old_high_water=$(sql "SELECT high_water FROM pouches WHERE id = '$pouch'")
expect_true "the old epoch has events" test "$(sql "SELECT count(*) FROM events WHERE pouch_id = '$pouch'")" -ge 1
"$POUCHCTL" pouch reset-epoch "$pouch" >"$SMOKE_TMP/reset.out" || true
revisions=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$pouch'")
expect_true "reset exits 0 and reports it" grep -q "high_water $old_high_water -> $revisions" "$SMOKE_TMP/reset.out"
req GET "/v1/pouches/$pouch" "" -H "Authorization: Bearer $token"
expect_status 200
new_epoch=$(json .data.epoch)
expect_json_match .data.epoch '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
expect_true "epoch changed" test "$new_epoch" != "$old_epoch"
expect_json .data.high_water "$revisions"
expect_true "old epoch's events replaced by the renumbered history" \
    test "$(sql "SELECT count(*), min(seq), max(seq), bool_and(epoch = '$new_epoch') FROM events WHERE pouch_id = '$pouch'")" = "$revisions|1|$revisions|t"
expect_true "revisions stay, renumbered" \
    test "$(sql "SELECT count(*), max(seq) FROM revisions WHERE pouch_id = '$pouch'")" = "$revisions|$revisions"
check reset_epoch_starts_a_new_epoch_holding_the_renumbered_history

commit_put "$token" "$pouch" "$old_epoch" "$member"
expect_error 409 epoch_mismatch
expect_json .error.details.current_epoch "$new_epoch"
commit_put "$token" "$pouch" "$new_epoch" "$member"
expect_status 200
expect_json '.data.results[0].seq' $((revisions + 1))
expect_json .data.high_water $((revisions + 1))
check after_a_reset_the_old_epoch_is_refused_and_seqs_continue_after_the_history

expect_true "unknown pouch exits 1" sh -c '"$POUCHCTL" pouch reset-epoch "$0" 2>/dev/null; test $? = 1' "$(flow_uuid)"
expect_true "malformed id exits 2" sh -c '"$POUCHCTL" pouch reset-epoch not-a-uuid 2>/dev/null; test $? = 2'
expect_true "--help exits 0" sh -c '"$POUCHCTL" pouch --help | grep -q reset-epoch'
check reset_epoch_refuses_unknown_and_malformed_ids

smoke_done
