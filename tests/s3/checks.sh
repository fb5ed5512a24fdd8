#!/usr/bin/env bash
# checks.sh -- the S3 store's own checks, run by tests/s3/run.sh against its stack (blobs in
# the bucket of POUCH_BLOB_STORE on a real radosgw; CEPH_DIR is the Ceph of tools/stack/ceph.sh):
# downloads through nginx's /_s3/ location (presigned by the handler) with the headers of the
# local location, Range, and nothing of the store leaking; presigned URLs (`pouchctl blobs url`)
# accepted fresh and refused expired or tampered by radosgw itself; radosgw killed -> the upload answers
# 503 unavailable with Retry-After and writes no row, back -> the retry stores it once;
# `pouchctl blobs migrate` interrupted (--limit) then rerun until everything is there once,
# a damaged object replaced; gc keeps an unrecorded object whose key is reserved, and an upload
# whose reservation was renewed meanwhile PUTs again under the lock, one resized or released
# meanwhile is 400 with no row; a body above the in-memory bound staged in a file; a streamed 4 MiB body with a wrong first or last byte stores nothing
# (and a wrong body is 400 even with the store down); a CLI push and pull. Relies on tests/smoke/lib.sh, flows.sh,
# blobstore.sh and tests/cli/lib.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
# shellcheck source=tests/smoke/flows.sh
source tests/smoke/flows.sh
# shellcheck source=tests/smoke/blobstore.sh
source tests/smoke/blobstore.sh

make_blob() {
    head -c "$2" /dev/urandom >"$SMOKE_TMP/$1"
    b3sum --raw "$SMOKE_TMP/$1" | basenc --base64url | tr -d '='
}
reserve() {  # reserve TOKEN POUCH ID SIZE
    req POST "/v1/pouches/$2/blobs/check" "{\"blobs\":[{\"id\":\"$3\",\"stored_size\":$4}]}" \
        -H "Authorization: Bearer $1"
}
upload() {  # upload TOKEN POUCH ID FILE
    req PUT "/v1/pouches/$2/blobs/$3" "@$4" -H 'Content-Type: application/octet-stream' \
        -H "Authorization: Bearer $1"
}
download() {  # download TOKEN POUCH ID [curl args]
    local token=$1 pouch=$2 id=$3
    shift 3
    req GET "/v1/pouches/$pouch/blobs/$id" "" -H "Authorization: Bearer $token" "$@" 2>/dev/null
}
blob_row() { sql "SELECT count(*) FROM blobs WHERE account_id = '$1' AND id = '$2'"; }
blob_bytes() { sql "SELECT blob_bytes FROM storage_accounts WHERE id = '$1'"; }

flow_user
token=$WEB_TOKEN account=$WEB_ACCOUNT pouch=$POUCH

# --- downloads: nginx fetches the presigned object --------------------------------------------
a=$(make_blob a 300001)
reserve "$token" "$pouch" "$a" 300001
upload "$token" "$pouch" "$a" "$SMOKE_TMP/a"
expect_status 201
expect_true "the object is in the bucket" cmp -s "$SMOKE_TMP/a" "$(blob_object "$account" "$a")"
download "$token" "$pouch" "$a"
expect_status 200
expect_true "same bytes" cmp -s "$SMOKE_TMP/a" "$SMOKE_TMP/body"
expect_header Content-Type application/octet-stream
expect_header Content-Length 300001
expect_header Cache-Control "private, no-store"
expect_header X-Content-Type-Options nosniff
expect_header_match X-Request-Id '^[0-9a-f]{32}$'
expect_header_match ETag '^"[0-9a-f]{32}"$'
expect_true "no header of the store's reaches the client" test -z "$(grep -i '^x-amz-' <<<"$HEADERS")"
check s3_download_goes_through_nginx_with_the_local_locations_headers

download "$token" "$pouch" "$a" -H 'Range: bytes=1000-1999'
expect_status 206
expect_header Content-Length 1000
expect_true "the range's bytes" cmp -s "$SMOKE_TMP/body" <(tail -c +1001 "$SMOKE_TMP/a" | head -c 1000)
check s3_download_serves_ranges

req GET "/v1/pouches/$pouch/blobs/$a"
expect_error 401 unauthenticated
check s3_download_needs_the_same_auth_as_before

# The presigned URL is the one signature computed by us (common/storage/presign.cpp): radosgw
# itself accepts it fresh and refuses it expired, tampered or moved to another key; the bucket
# refuses unsigned reads.
url=$("$POUCHCTL" blobs url "$account" "$a")
code=$(curl -s -o "$SMOKE_TMP/presigned" -w '%{http_code}' "$url")
expect_true "a fresh presigned URL reads the object from radosgw (got $code)" test "$code" = 200
expect_true "the object's bytes" cmp -s "$SMOKE_TMP/a" "$SMOKE_TMP/presigned"
sig=${url##*X-Amz-Signature=}
flipped=$(tr '0-9a-f' '1-9a-f0' <<<"${sig:0:1}")${sig:1}
code=$(curl -s -o /dev/null -w '%{http_code}' "${url%"$sig"}$flipped")
expect_true "a tampered signature is refused (got $code)" test "$code" = 403
code=$(curl -s -o /dev/null -w '%{http_code}' "${url/\/$a\?//$a-other?}")
expect_true "the query moved to another key is refused (got $code)" test "$code" = 403
url=$("$POUCHCTL" blobs url "$account" "$a" --expires 1)
sleep 2
code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
expect_true "an expired presigned URL is refused (got $code)" test "$code" = 403
code=$(curl -s -o /dev/null -w '%{http_code}' "$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}/$account/$a")
expect_true "the bucket is not public (got $code)" test "$code" = 403
check s3_presigned_urls_are_checked_by_radosgw

# --- radosgw down: 503 and no row; back: the retry stores it ------------------------------------
b=$(make_blob b 200000)
reserve "$token" "$pouch" "$b" 200000
bytes_before=$(blob_bytes "$account")
tools/stack/ceph.sh kill-rgw "$CEPH_DIR" >/dev/null 2>&1
upload "$token" "$pouch" "$b" "$SMOKE_TMP/b"
expect_error 503 unavailable
expect_header_match Retry-After '^[0-9]+$'
expect_true "no row" test "$(blob_row "$account" "$b")" = 0
expect_true "reservation kept" test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$account' AND blob_id = '$b'")" = 1
expect_true "bytes not counted" test "$(blob_bytes "$account")" = "$bytes_before"
expect_true "no temporary file left" test -z "$(find "$blob_dir/tmp" -type f 2>/dev/null)"
download "$token" "$pouch" "$a"
expect_true "a download meanwhile is 5xx (got $STATUS)" test "$STATUS" -ge 500
check s3_store_down_upload_is_503_unavailable_with_no_row

# The streamed PUT failed before the body was checked: the body is still read and judged, so a
# wrong one answers 400 as it did when the PUT began only after the check.
head -c 200000 /dev/urandom >"$SMOKE_TMP/b_other"
upload "$token" "$pouch" "$b" "$SMOKE_TMP/b_other"
expect_error 400 validation_failed
expect_json_match .error.message 'hash'
expect_true "no row" test "$(blob_row "$account" "$b")" = 0
check s3_store_down_a_wrong_body_is_still_400
"$POUCHCTL" gc >"$SMOKE_TMP/gc-down.out" 2>&1
rc=$?
expect_true "gc with the store down exits 1 ($rc)" test "$rc" = 1
expect_true "and names the store ($(tail -n 1 "$SMOKE_TMP/gc-down.out"))" \
    grep -q "pouchctl gc: the s3://${POUCH_BLOB_STORE#s3://} at $POUCH_S3_ENDPOINT failed" "$SMOKE_TMP/gc-down.out"
check s3_store_down_gc_fails_and_says_so

tools/stack/ceph.sh start-rgw "$CEPH_DIR" >/dev/null 2>&1
upload "$token" "$pouch" "$b" "$SMOKE_TMP/b"
expect_status 201
expect_true "one row" test "$(blob_row "$account" "$b")" = 1
expect_true "bytes counted once" test "$(blob_bytes "$account")" = $((bytes_before + 200000))
expect_true "the object holds the bytes" cmp -s "$SMOKE_TMP/b" "$(blob_object "$account" "$b")"
upload "$token" "$pouch" "$b" "$SMOKE_TMP/b"
expect_status 200
expect_true "still counted once" test "$(blob_bytes "$account")" = $((bytes_before + 200000))
download "$token" "$pouch" "$b"
expect_status 200
expect_true "same bytes" cmp -s "$SMOKE_TMP/b" "$SMOKE_TMP/body"
check s3_store_back_the_retried_upload_is_stored_once

# --- an upload trusts its PUT only while its reservation lives; gc keeps reserved keys ----------
# The handler records the object under the account lock without asking the store again when the
# reservation it read before its PUT is still the same row (blobs.cpp); gc never removes an
# unrecorded object whose key has a reservation row (tools/pouchctl/gc.cpp).
c=$(make_blob c 120000)
reserve "$token" "$pouch" "$c" 120000
upload "$token" "$pouch" "$c" "$SMOKE_TMP/c"
expect_status 201
bytes_before=$(blob_bytes "$account")
# Unreferenced for over a day, and its key reserved again (as a check does once gc deleted the
# row and before it removes the object): gc deletes the row and keeps the object.
sql "UPDATE blobs SET created_at = now() - interval '25 hours' WHERE account_id = '$account' AND id = '$c'" >/dev/null
sql "INSERT INTO blob_reservations (account_id, blob_id, stored_size, expires_at)
     VALUES ('$account', '$c', 120000, now() + interval '24 hours')" >/dev/null
out=$("$POUCHCTL" gc 2>&1)
expect_true "gc exits 0 ($out)" test $? = 0
expect_true "gc deleted the one unreferenced row ($out)" grep -qx 'deleted 1 unreferenced blobs (120000 bytes) in 1 accounts' <<<"$out"
expect_true "and kept its object for the reservation ($out)" \
    grep -qx 'kept 1 unrecorded blob objects whose blob is reserved (an upload may be recording them)' <<<"$out"
expect_true "the row is gone" test "$(blob_row "$account" "$c")" = 0
expect_true "its bytes left the usage" test "$(blob_bytes "$account")" = $((bytes_before - 120000))
expect_true "the object is still in the bucket" cmp -s "$SMOKE_TMP/c" "$(blob_object "$account" "$c")"
upload "$token" "$pouch" "$c" "$SMOKE_TMP/c"
expect_status 201
expect_true "the upload recorded it again" test "$(blob_row "$account" "$c")" = 1
expect_true "counted once" test "$(blob_bytes "$account")" = "$bytes_before"
expect_true "its reservation is used" test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$account' AND blob_id = '$c'")" = 0
download "$token" "$pouch" "$c"
expect_status 200
expect_true "and it downloads" cmp -s "$SMOKE_TMP/c" "$SMOKE_TMP/body"
check s3_gc_keeps_an_unrecorded_object_whose_blob_is_reserved

# The same without a reservation: the object goes with the row.
sql "UPDATE blobs SET created_at = now() - interval '25 hours' WHERE account_id = '$account' AND id = '$c'" >/dev/null
out=$("$POUCHCTL" gc 2>&1)
expect_true "gc exits 0 ($out)" test $? = 0
expect_true "gc kept no object for a reservation ($out)" \
    grep -qx 'kept 0 unrecorded blob objects whose blob is reserved (an upload may be recording them)' <<<"$out"
expect_true "the row is gone" test "$(blob_row "$account" "$c")" = 0
expect_true "and the object" test ! -e "$(blob_object "$account" "$c")"
check s3_gc_removes_the_object_of_an_unreserved_deleted_row

# upload_held ID FILE: uploads FILE as blob ID while the test holds the account's lock, and returns
# once the handler's PUT has landed in the bucket (the handler then waits on the lock to write
# its row). release_held SQL runs SQL under the lock, commits, and waits for the upload, whose
# answer is then the last one (STATUS, HEADERS, BODY), as after req.
upload_held() {
    held_id=$1
    local file=$2
    exec {hold}> >(exec psql "$POUCH_DATABASE_URL" -XtAq >"$SMOKE_TMP/hold.out" 2>&1)
    echo "BEGIN; SELECT id FROM storage_accounts WHERE id = '$account' FOR UPDATE;" >&"$hold"
    for _ in $(seq 1 100); do
        [[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'
                   AND query LIKE '%FOR UPDATE%' AND query LIKE '%$account%'") == 1 ]] && break
        sleep 0.1
    done
    ( upload "$token" "$pouch" "$held_id" "$file"
      echo "$STATUS" >"$SMOKE_TMP/$held_id.status"
      cp "$SMOKE_TMP/body" "$SMOKE_TMP/$held_id.body"; cp "$SMOKE_TMP/headers" "$SMOKE_TMP/$held_id.headers" ) &
    held_pid=$!
    local landed=0 code
    for _ in $(seq 1 200); do
        code=$(s3_curl HEAD "$account/$held_id" -I -o /dev/null -w '%{http_code}') || code=000
        [[ $code == 200 ]] && { landed=1; break; }
        sleep 0.05
    done
    expect_true "the handler's PUT landed while the lock was held" test "$landed" = 1
}
release_held() {
    echo "$1 COMMIT;" >&"$hold"
    exec {hold}>&-
    wait "$held_pid"
    STATUS=$(cat "$SMOKE_TMP/$held_id.status")
    BODY=$(cat "$SMOKE_TMP/$held_id.body")
    HEADERS=$(tr -d '\r' <"$SMOKE_TMP/$held_id.headers")
}

# An upload whose reservation was made anew between its PUT and its row (the old one expired
# and was released, say) asks the store again under the lock: here the test removes the object
# once the handler's PUT has landed (as gc may then have) and renews the reservation; the
# handler must PUT again before it writes the row.
d=$(make_blob d 250000)
reserve "$token" "$pouch" "$d" 250000
bytes_before=$(blob_bytes "$account")
upload_held "$d" "$SMOKE_TMP/d"
s3_curl DELETE "$account/$d" -o /dev/null
expect_true "the object removed behind the handler's back" test ! -e "$(blob_object "$account" "$d")"
release_held "UPDATE blob_reservations SET created_at = created_at + interval '1 second'
               WHERE account_id = '$account' AND blob_id = '$d';"
expect_status 201
expect_true "one row" test "$(blob_row "$account" "$d")" = 1
expect_true "counted once" test "$(blob_bytes "$account")" = $((bytes_before + 250000))
expect_true "the object is there again with its bytes" cmp -s "$SMOKE_TMP/d" "$(blob_object "$account" "$d")"
check s3_upload_with_a_renewed_reservation_stores_the_object_again

# What the row's one statement (sql/016_blob_record.sql) finds under the lock once the bytes
# are in the bucket: a reservation resized meanwhile (another check of the id) is 400 with the
# new size, one released meanwhile is 400 as an upload without one; neither writes a row or
# counts a byte.
d2=$(make_blob d2 250000)
reserve "$token" "$pouch" "$d2" 250000
bytes_before=$(blob_bytes "$account")
upload_held "$d2" "$SMOKE_TMP/d2"
release_held "UPDATE blob_reservations SET stored_size = 250001
               WHERE account_id = '$account' AND blob_id = '$d2';"
expect_error 400 validation_failed
expect_json .error.message "the reservation was changed to 250001 bytes during the upload"
expect_true "no row" test "$(blob_row "$account" "$d2")" = 0
expect_true "nothing counted" test "$(blob_bytes "$account")" = "$bytes_before"
check s3_upload_whose_reservation_was_resized_meanwhile_is_400_and_writes_no_row

d3=$(make_blob d3 250000)
reserve "$token" "$pouch" "$d3" 250000
upload_held "$d3" "$SMOKE_TMP/d3"
release_held "DELETE FROM blob_reservations WHERE account_id = '$account' AND blob_id = '$d3';"
expect_error 400 validation_failed
expect_json_match .error.message 'no active reservation'
expect_true "no row" test "$(blob_row "$account" "$d3")" = 0
expect_true "nothing counted" test "$(blob_bytes "$account")" = "$bytes_before"
check s3_upload_whose_reservation_was_released_meanwhile_is_400_and_writes_no_row

# Above kMaxBodyInMemory (8 MiB) the body is staged in a file, and the upload is the same.
e=$(make_blob e $((9 * 1024 * 1024)))
reserve "$token" "$pouch" "$e" $((9 * 1024 * 1024))
upload "$token" "$pouch" "$e" "$SMOKE_TMP/e"
expect_status 201
expect_true "the object holds the 9 MiB" cmp -s "$SMOKE_TMP/e" "$(blob_object "$account" "$e")"
expect_true "no temporary file left" test -z "$(find "$blob_dir/tmp" -type f 2>/dev/null)"
check s3_upload_above_the_memory_bound_goes_through_a_file

# Up to the bound the PUT starts at once and is fed as the body arrives, all but its last byte
# until the body is checked (handlers/sync/blobs.cpp, WithheldBody). A 4 MiB chunk whose last
# byte is wrong: radosgw had every other byte when the hash failed, and must keep nothing; nor
# when the first byte is wrong; the right body then stores the object.
f=$(make_blob f $((4 * 1024 * 1024)))
reserve "$token" "$pouch" "$f" $((4 * 1024 * 1024))
for where in last first; do
    cp "$SMOKE_TMP/f" "$SMOKE_TMP/f_bad"
    if [[ $where == last ]]; then offset=$((4 * 1024 * 1024 - 1)); else offset=0; fi
    byte=$(od -An -tu1 -j "$offset" -N1 "$SMOKE_TMP/f" | tr -d ' ')
    printf "\\$(printf '%03o' $(((byte + 1) % 256)))" |
        dd of="$SMOKE_TMP/f_bad" bs=1 seek="$offset" conv=notrunc status=none
    expect_true "the $where byte differs" test "$(cmp "$SMOKE_TMP/f" "$SMOKE_TMP/f_bad" | wc -l)" = 1
    upload "$token" "$pouch" "$f" "$SMOKE_TMP/f_bad"
    expect_error 400 validation_failed
    expect_json_match .error.message 'hash'
    expect_true "no row ($where byte wrong)" test "$(blob_row "$account" "$f")" = 0
    code=$(s3_curl HEAD "$account/$f" -o /dev/null -I -w '%{http_code}') || code=000
    expect_true "no object in the bucket ($where byte wrong: HEAD $code)" test "$code" = 404
done
upload "$token" "$pouch" "$f" "$SMOKE_TMP/f"
expect_status 201
expect_true "one row" test "$(blob_row "$account" "$f")" = 1
expect_true "the object holds the 4 MiB" cmp -s "$SMOKE_TMP/f" "$(blob_object "$account" "$f")"
check s3_streamed_upload_of_a_wrong_body_stores_nothing_then_the_right_one_is_stored

# --- pouchctl blobs migrate ----------------------------------------------------------------------
src=$SMOKE_TMP/old-blobs
macct=$(flow_uuid)
mkdir -p "$src/$macct" "$src/tmp"
ids=()
for i in 1 2 3 4 5; do
    id=$(make_blob "m$i" $((1000 * i + 1)))
    cp "$SMOKE_TMP/m$i" "$src/$macct/$id"
    ids+=("$id")
done
: >"$src/tmp/an-upload-in-progress"
# listed ACCOUNT: the keys of the account's objects in the bucket, one a line (every page;
# the query's parameters in name order and %-encoded by hand, as curl 7.88 signs the query as
# written).
listed() {
    local token="" page query
    while :; do
        query="list-type=2&prefix=$(jq -rn --arg v "$1/" '$v|@uri')"
        [[ -n $token ]] && query="continuation-token=$(jq -rn --arg v "$token" '$v|@uri')&$query"
        page=$(curl -sS --aws-sigv4 "aws:amz:$POUCH_S3_REGION:s3" \
            --user "$POUCH_S3_ACCESS_KEY:$POUCH_S3_SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
            "$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}?$query")
        grep -o '<Key>[^<]*</Key>' <<<"$page" | sed 's/<\/\?Key>//g'
        grep -q '<IsTruncated>true</IsTruncated>' <<<"$page" || break
        token=$(grep -o '<NextContinuationToken>[^<]*' <<<"$page" | sed 's/<NextContinuationToken>//')
        [[ -n $token ]] || break
    done | sort
}
out=$("$POUCHCTL" blobs migrate --from "$src" --limit 2 2>&1)
expect_true "an interrupted run copies 2 ($out)" grep -qx 'copied 2, already there 0, failed 0 (stopped at --limit: run it again to continue)' <<<"$out"
expect_true "2 objects in the bucket" test "$(listed "$macct" | wc -l)" = 2
out=$("$POUCHCTL" blobs migrate --from "$src" 2>&1)
expect_true "the rerun copies the other 3 and skips 2 ($out)" grep -qx 'copied 3, already there 2, failed 0' <<<"$out"
expect_true "every blob there once" test "$(listed "$macct")" = "$(printf "$macct/%s\n" "${ids[@]}" | sort)"
for i in 1 2 3 4 5; do
    expect_true "object $i holds the bytes" cmp -s "$SMOKE_TMP/m$i" "$(blob_object "$macct" "${ids[$((i - 1))]}")"
done
out=$("$POUCHCTL" blobs migrate --from "$src" 2>&1)
expect_true "a third run copies nothing ($out)" grep -qx 'copied 0, already there 5, failed 0' <<<"$out"
check s3_blobs_migrate_resumes_and_copies_each_blob_once

head -c 3001 /dev/urandom >"$SMOKE_TMP/damaged"
blob_object_put "$macct" "${ids[2]}" "$SMOKE_TMP/damaged"
out=$("$POUCHCTL" blobs migrate --from "$src" 2>&1)
expect_true "an object of the right size with other bytes is copied again ($out)" grep -qx 'copied 1, already there 4, failed 0' <<<"$out"
expect_true "and holds the file's bytes" cmp -s "$SMOKE_TMP/m3" "$(blob_object "$macct" "${ids[2]}")"
POUCH_BLOB_STORE= "$POUCHCTL" blobs migrate --from "$src" >/dev/null 2>&1
expect_true "without an s3:// target it exits 2" test $? = 2
check s3_blobs_migrate_replaces_a_damaged_object

# --- gc lists the bucket in pages ----------------------------------------------------------------
# 1,001 young unrecorded objects of one account (curl in parallel): gc must follow the
# continuation token past the first 1,000 keys, and keeps them all (younger than 24 h).
junk=$(flow_uuid)
echo x >"$SMOKE_TMP/junk"
urls=()
for i in $(seq 1 1001); do urls+=(-T "$SMOKE_TMP/junk" "$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}/$junk/j$i"); done
curl -sS -Z --parallel-max 16 -o /dev/null --aws-sigv4 "aws:amz:$POUCH_S3_REGION:s3" \
    --user "$POUCH_S3_ACCESS_KEY:$POUCH_S3_SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "${urls[@]}" \
    2>"$SMOKE_TMP/junk.err"  # curl 7.88 shows its parallel progress meter despite -s
total=$(listed "$junk" | wc -l)
expect_true "1,001 objects stored ($total; a listing page holds 1,000)" test "$total" = 1001
out=$("$POUCHCTL" gc 2>&1)
expect_true "gc exits 0 ($out)" test $? = 0
line=$(grep -o 'unrecorded blob objects (of [0-9]* listed in [0-9]* pages)' <<<"$out")
n=$(sed 's/.*of \([0-9]*\) listed.*/\1/' <<<"$line")
pages=$(sed 's/.* in \([0-9]*\) pages.*/\1/' <<<"$line")
expect_true "gc listed every object, the 1,001 among them ($line)" test "${n:-0}" -ge 1001
expect_true "in more than one page ($line)" test "${pages:-0}" -ge 2
expect_true "and kept the young ones" test "$(listed "$junk" | wc -l)" = 1001
check s3_gc_lists_the_bucket_in_pages

# --- the CLI: push and pull through the bucket --------------------------------------------------
# shellcheck source=tests/cli/lib.sh
source tests/cli/lib.sh
A=$CLI_TMP/A B=$CLI_TMP/B
mkdir -p "$A" "$B"
if web_account; then
    login laptop-a
    login laptop-b
    echo "hello" >"$A/hello.txt"
    head -c $((6 * 1024 * 1024)) /dev/urandom >"$A/big.bin"
    dev laptop-a push "$A"
    expect_true "push exits 0 ($RC: $ERR)" test "$RC" = 0
    dev laptop-b sync "$B"
    expect_true "sync exits 0 ($RC: $ERR)" test "$RC" = 0
    expect_true "B holds A's files byte for byte" same_tree "$A" "$B"
    owner=$(sql "SELECT account_id FROM pouches WHERE id = '$POUCH_ID'")
    n=$(sql "SELECT count(*) FROM blobs WHERE account_id = '$owner'")
    expect_true "the big file's chunks are rows ($n)" test "$n" -ge 2
    expect_true "and each row's object is in the bucket" test "$(listed "$owner" | wc -l)" = "$n"
else
    smoke_fail "no web account"
fi
check s3_cli_push_and_pull_through_the_bucket

smoke_done
