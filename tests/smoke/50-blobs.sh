#!/usr/bin/env bash
# 50-blobs.sh -- blob check, upload and download through nginx (decisions §5.5): reservations
# in request order and never twice, quota to the exact byte, every refused upload leaving
# nothing behind, dedup per account, downloads byte for byte (b3sum and cmp as oracles), and
# other accounts' pouches and blobs answering 404. Pouches are made with psql. Relies on
# tests/smoke/lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"
# shellcheck source=tests/smoke/blobstore.sh
source "$(dirname "$0")/blobstore.sh"

run=$(date +%s%N)

# new_pouch ACCOUNT: a pouch row of that account; prints its id.
new_pouch() {
    local id
    id=$(flow_uuid)
    sql "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ('$id', '$1', gen_random_uuid(), 1)"
    echo "$id"
}
# make_blob NAME SIZE: random bytes in $SMOKE_TMP/NAME; prints the blob id (b64url BLAKE3).
make_blob() {
    head -c "$2" /dev/urandom >"$SMOKE_TMP/$1"
    b3sum --raw "$SMOKE_TMP/$1" | basenc --base64url | tr -d '='
}
# check_blobs TOKEN POUCH 'ID SIZE'...: POST .../blobs/check with those items.
check_blobs() {
    local token=$1 pouch=$2 items='[]' pair
    shift 2
    for pair in "$@"; do
        items=$(jq -c --arg id "${pair% *}" --argjson n "${pair#* }" '. + [{id:$id, stored_size:$n}]' <<<"$items")
    done
    req POST "/v1/pouches/$pouch/blobs/check" "{\"blobs\":$items}" -H "Authorization: Bearer $token"
}
# upload TOKEN POUCH ID FILE [curl args]: PUT the file as the blob's bytes.
upload() {
    local token=$1 pouch=$2 id=$3 file=$4
    shift 4
    req PUT "/v1/pouches/$pouch/blobs/$id" "@$file" -H 'Content-Type: application/octet-stream' \
        -H "Authorization: Bearer $token" "$@"
}
reservation() { sql "SELECT stored_size FROM blob_reservations WHERE account_id = '$1' AND blob_id = '$2'"; }
blob_row() { sql "SELECT stored_size FROM blobs WHERE account_id = '$1' AND id = '$2'"; }
blob_bytes() { sql "SELECT blob_bytes FROM storage_accounts WHERE id = '$1'"; }
temp_files() { find "$blob_dir/tmp" -type f 2>/dev/null | wc -l; }

flow_web_user ada
ada=$WEB_TOKEN
ada_account=$WEB_ACCOUNT
ada_pouch=$(new_pouch "$ada_account")
flow_web_user bob
bob=$WEB_TOKEN
bob_account=$WEB_ACCOUNT
bob_pouch=$(new_pouch "$bob_account")

a=$(make_blob a 1000)
b=$(make_blob b 2000)
c=$(make_blob c 3000)

# --- check ---------------------------------------------------------------------------------
check_blobs "$ada" "$ada_pouch" "$c 3000" "$a 1000" "$b 2000"
expect_status 200
expect_json '.data.missing | join(",")' "$c,$a,$b"
expect_true "a reserved" test "$(reservation "$ada_account" "$a")" = 1000
expect_true "c reserved" test "$(reservation "$ada_account" "$c")" = 3000
expect_true "reserved for 24 h" test "$(sql "SELECT count(*) FROM blob_reservations
    WHERE account_id = '$ada_account' AND expires_at BETWEEN now() + interval '23 hours 59 minutes' AND now() + interval '24 hours'")" = 3
req GET /v1/account "" -H "Authorization: Bearer $ada"
expect_json .data.usage.reserved_bytes 6000
check check_reports_missing_in_request_order_and_reserves_them

sql "UPDATE blob_reservations SET expires_at = now() + interval '1 hour' WHERE account_id = '$ada_account' AND blob_id = '$a'"
check_blobs "$ada" "$ada_pouch" "$a 1000" "$b 2000"
expect_status 200
expect_json '.data.missing | join(",")' "$a,$b"
expect_true "one reservation row per blob" \
    test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$ada_account'")" = 3
req GET /v1/account "" -H "Authorization: Bearer $ada"
expect_json .data.usage.reserved_bytes 6000
expect_true "a re-check refreshes the expiry to 24 h" test "$(sql "SELECT expires_at > now() + interval '23 hours'
    FROM blob_reservations WHERE account_id = '$ada_account' AND blob_id = '$a'")" = t
check second_check_reserves_nothing_twice_and_refreshes_expiry

check_blobs "$ada" "$ada_pouch" "$a 1000" "$b 2000" "$a 1000"
expect_error 400 validation_failed
expect_json .error.field /blobs/2/id
check check_with_a_repeated_id_points_at_the_repeat

check_blobs "$ada" "$ada_pouch" "$a 0"
expect_error 400 validation_failed
expect_json .error.field /blobs/0/stored_size
check_blobs "$ada" "$ada_pouch" "$a 67108865"
expect_error 400 validation_failed
expect_json .error.field /blobs/0/stored_size
check_blobs "$ada" "$ada_pouch" "${a:0:42} 10"
expect_error 400 validation_failed
expect_json .error.field /blobs/0/id
# 43 b64url characters whose last one carries bits beyond the 32 bytes: not a blob id.
check_blobs "$ada" "$ada_pouch" "${a:0:42}B 10"
expect_error 400 validation_failed
expect_json .error.field /blobs/0/id
# n distinct canonical ids (a trailing "A" leaves the unused bits zero), each of the maximum size.
many() { jq -nc --argjson n "$1" '{blobs:[range($n) | tostring | {id:("A" * (42 - length) + . + "A"), stored_size:67108864}]}'; }
req POST "/v1/pouches/$ada_pouch/blobs/check" "$(many 1001)" -H "Authorization: Bearer $ada"
expect_error 400 validation_failed
expect_json .error.field /blobs
req POST "/v1/pouches/$ada_pouch/blobs/check" '{"blobs":[],"extra":1}' -H "Authorization: Bearer $ada"
expect_error 400 validation_failed
req POST "/v1/pouches/$ada_pouch/blobs/check" '{"blobs":[]}' -H "Authorization: Bearer $ada"
expect_status 200
expect_json '.data.missing | length' 0
expect_true "nothing reserved by refused checks" \
    test "$(sql "SELECT count(*) FROM blob_reservations WHERE account_id = '$ada_account'")" = 3
check check_validates_ids_sizes_and_count

# The largest allowed check fits the body limit; 1000 x 64 MiB is over any plan.
req POST "/v1/pouches/$ada_pouch/blobs/check" "$(many 1000)" -H "Authorization: Bearer $ada"
expect_error 403 quota_exceeded
expect_json .error.details.requested_bytes $((1000 * 67108864))
check check_of_1000_blobs_of_64_mib_is_accepted_and_weighed

req POST "/v1/pouches/$ada_pouch/blobs/check" '{"blobs":[]}'
expect_error 401 unauthenticated
check check_without_credentials_is_401

# --- quota to the exact byte ------------------------------------------------------------------
# Carol: 100 bytes of revisions, blob x (30) reserved; checking x again and y (20) adds 20,
# so used + reserved + new = 150.
flow_web_user carol
carol=$WEB_TOKEN
carol_account=$WEB_ACCOUNT
carol_pouch=$(new_pouch "$carol_account")
sql "UPDATE pouches SET stored_bytes = 100 WHERE id = '$carol_pouch'"
plan=$(sql "INSERT INTO plans (slug, name, pouch_limit, storage_bytes) VALUES ('blobs-$run', 'Blob test', 5, 130) RETURNING id")
sql "UPDATE storage_accounts SET plan_id = '$plan' WHERE id = '$carol_account'"
x=$(make_blob x 30)
y=$(make_blob y 20)
check_blobs "$carol" "$carol_pouch" "$x 30"
expect_status 200
expect_json '.data.missing | join(",")' "$x"
check quota_allows_a_check_up_to_the_limit

x_expiry=$(sql "SELECT expires_at FROM blob_reservations WHERE account_id = '$carol_account' AND blob_id = '$x'")
sql "UPDATE plans SET storage_bytes = 149 WHERE id = '$plan'"
check_blobs "$carol" "$carol_pouch" "$x 30" "$y 20"
expect_error 403 quota_exceeded
expect_json .error.details.limit_bytes 149
expect_json .error.details.used_bytes 130
expect_json .error.details.requested_bytes 20
expect_true "y not reserved" test -z "$(reservation "$carol_account" "$y")"
expect_true "x's reservation untouched" test "$(sql "SELECT expires_at FROM blob_reservations
    WHERE account_id = '$carol_account' AND blob_id = '$x'")" = "$x_expiry"
check quota_one_byte_over_refuses_and_reserves_nothing

sql "UPDATE plans SET storage_bytes = 150 WHERE id = '$plan'"
check_blobs "$carol" "$carol_pouch" "$x 30" "$y 20"
expect_status 200
expect_json '.data.missing | join(",")' "$x,$y"
expect_true "y reserved" test "$(reservation "$carol_account" "$y")" = 20
req GET /v1/account "" -H "Authorization: Bearer $carol"
expect_json .data.usage.reserved_bytes 50
expect_json .data.usage.stored_bytes 100
check quota_at_exactly_the_limit_passes

sql "UPDATE plans SET storage_bytes = 10 WHERE id = '$plan'"
check_blobs "$carol" "$carol_pouch" "$x 30" "$y 20"
expect_status 200
check recheck_of_reserved_blobs_adds_nothing_so_a_lowered_plan_allows_it
z=$(make_blob z 1)
check_blobs "$carol" "$carol_pouch" "$z 1"
expect_error 403 quota_exceeded
expect_json .error.details.limit_bytes 10
expect_json .error.details.used_bytes 150
expect_json .error.details.requested_bytes 1
check lowered_plan_limit_applies_at_once

# --- upload ----------------------------------------------------------------------------------
w=$(make_blob w 500)
upload "$ada" "$ada_pouch" "$w" "$SMOKE_TMP/w"
expect_error 400 validation_failed
expect_json_match .error.message 'reservation'
expect_true "no row" test -z "$(blob_row "$ada_account" "$w")"
expect_true "no file" test ! -e "$(blob_object "$ada_account" "$w")"
check upload_without_reservation_is_400

head -c 999 "$SMOKE_TMP/a" >"$SMOKE_TMP/a_short"
upload "$ada" "$ada_pouch" "$a" "$SMOKE_TMP/a_short"
expect_error 400 validation_failed
expect_json_match .error.message 'Content-Length'
expect_true "no row" test -z "$(blob_row "$ada_account" "$a")"
expect_true "reservation kept" test "$(reservation "$ada_account" "$a")" = 1000
check upload_of_the_wrong_size_is_400

head -c 1000 /dev/urandom >"$SMOKE_TMP/a_other"
upload "$ada" "$ada_pouch" "$a" "$SMOKE_TMP/a_other"
expect_error 400 validation_failed
expect_json_match .error.message 'hash'
expect_true "no row" test -z "$(blob_row "$ada_account" "$a")"
expect_true "no file" test ! -e "$(blob_object "$ada_account" "$a")"
expect_true "temporary file removed" test "$(temp_files)" = 0
expect_true "reservation kept" test "$(reservation "$ada_account" "$a")" = 1000
check upload_with_a_wrong_hash_is_400_and_leaves_nothing

req PUT "/v1/pouches/$ada_pouch/blobs/$a" "@$SMOKE_TMP/a" -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $ada"
expect_error 415 unsupported_media_type
expect_true "no row" test -z "$(blob_row "$ada_account" "$a")"
check upload_needs_octet_stream

before=$(blob_bytes "$ada_account")
upload "$ada" "$ada_pouch" "$a" "$SMOKE_TMP/a"
expect_status 201
expect_json .data.id "$a"
expect_json .data.stored_size 1000
expect_true "row stored" test "$(blob_row "$ada_account" "$a")" = 1000
expect_true "reservation consumed" test -z "$(reservation "$ada_account" "$a")"
expect_true "blob bytes grew by 1000" test "$(blob_bytes "$ada_account")" = $((before + 1000))
expect_true "object holds the bytes" cmp -s "$SMOKE_TMP/a" "$(blob_object "$ada_account" "$a")"
blobstore_is_s3 || expect_true "file mode 0640" test "$(stat -c %a "$blob_dir/$ada_account/$a")" = 640
expect_true "temporary file gone" test "$(temp_files)" = 0
req GET /v1/account "" -H "Authorization: Bearer $ada"
expect_json .data.usage.stored_bytes 1000
expect_json .data.usage.reserved_bytes 5000
check upload_stores_file_and_row_and_turns_reservation_into_usage

stamp=$(blob_object_stamp "$ada_account" "$a")
sleep 1
upload "$ada" "$ada_pouch" "$a" "$SMOKE_TMP/a"
expect_status 200
expect_json .data.id "$a"
expect_json .data.stored_size 1000
expect_true "object untouched" test "$(blob_object_stamp "$ada_account" "$a")" = "$stamp"
expect_true "blob bytes unchanged" test "$(blob_bytes "$ada_account")" = $((before + 1000))
check reupload_of_a_present_blob_is_200_and_rewrites_nothing

check_blobs "$ada" "$ada_pouch" "$a 1000" "$b 2000"
expect_status 200
expect_json '.data.missing | join(",")' "$b"
check check_no_longer_lists_an_uploaded_blob

# --- download --------------------------------------------------------------------------------
# download TOKEN POUCH ID [curl args]: the body is binary, so bash's warning about NUL bytes
# in $BODY is silenced; compare $SMOKE_TMP/body instead.
download() {
    local token=$1 pouch=$2 id=$3
    shift 3
    req GET "/v1/pouches/$pouch/blobs/$id" "" -H "Authorization: Bearer $token" "$@" 2>/dev/null
}
download "$ada" "$ada_pouch" "$a"
expect_status 200
expect_header Content-Type application/octet-stream
expect_true "same bytes" cmp -s "$SMOKE_TMP/a" "$SMOKE_TMP/body"
expect_true "same BLAKE3" test "$(b3sum --raw "$SMOKE_TMP/body" | basenc --base64url | tr -d '=')" = "$a"
check download_through_nginx_returns_exactly_the_bytes

req GET "/v1/pouches/$ada_pouch/blobs/$b" "" -H "Authorization: Bearer $ada"
expect_error 404 not_found
check download_of_a_reserved_but_not_uploaded_blob_is_404
req GET "/v1/pouches/$ada_pouch/blobs/$w" "" -H "Authorization: Bearer $ada"
expect_error 404 not_found
check download_of_an_unknown_blob_is_404

req GET "/_blobs/$ada_account/$a"
expect_status 404
req GET "/_s3/http/127.0.0.1/bucket/$ada_account/$a"
expect_status 404
check blob_files_are_not_served_directly

# A large blob crosses many read and write chunks.
big=$(make_blob big $((5 * 1024 * 1024 + 7)))
check_blobs "$ada" "$ada_pouch" "$big $((5 * 1024 * 1024 + 7))"
upload "$ada" "$ada_pouch" "$big" "$SMOKE_TMP/big"
expect_status 201
download "$ada" "$ada_pouch" "$big"
expect_status 200
expect_true "same bytes" cmp -s "$SMOKE_TMP/big" "$SMOKE_TMP/body"
check large_blob_round_trips

# --- a CLI device of the account (device and access token inserted with psql) -------------------
"$POUCHCTL" keygen --out "$SMOKE_TMP/device.key" >"$SMOKE_TMP/device.jwk"
jkt=$("$POUCHCTL" jwk --key "$SMOKE_TMP/device.key" | jq -r .jkt)
device=$(flow_uuid)
member=$(flow_uuid)
at="svc_at_$(head -c 32 /dev/urandom | basenc --base64url | tr -d '=')"
at_hash=$(printf %s "$at" | openssl dgst -sha256 -binary | basenc --base64url | tr -d '=')
sql "BEGIN;
     INSERT INTO members (id, account_id, kind, device_id) VALUES ('$member', '$ada_account', 'device', '$device');
     INSERT INTO devices (id, account_id, member_id, name, os, arch, cli_version, key_storage,
                          sign_x, sign_y, sign_jkt, enc_x, enc_y, welcome)
     VALUES ('$device', '$ada_account', '$member', 'blob test', 'linux', 'x86_64', '1.0', 'file',
             '$(jq -r .x "$SMOKE_TMP/device.jwk")', '$(jq -r .y "$SMOKE_TMP/device.jwk")', '$jkt',
             '$(jq -r .x "$SMOKE_TMP/device.jwk")', '$(jq -r .y "$SMOKE_TMP/device.jwk")', 'w');
     INSERT INTO access_tokens (token_hash, device_id, jkt, expires_at)
     VALUES ('$at_hash', '$device', '$jkt', now() + interval '1 hour');
     COMMIT;"
# cli METHOD PATH [BODY] [curl args]: cli_req as that device (bash's warning about the NUL
# bytes of a download silenced).
DEVICE_KEY=$SMOKE_TMP/device.key ACCESS=$at
cli() { cli_req "$@" 2>/dev/null; }
d=$(make_blob d 4096)
cli POST "/v1/pouches/$ada_pouch/blobs/check" "{\"blobs\":[{\"id\":\"$d\",\"stored_size\":4096}]}"
expect_status 200
expect_json '.data.missing | join(",")' "$d"
cli PUT "/v1/pouches/$ada_pouch/blobs/$d" "@$SMOKE_TMP/d" -H 'Content-Type: application/octet-stream'
expect_status 201
cli GET "/v1/pouches/$ada_pouch/blobs/$d"
expect_status 200
expect_true "same bytes" cmp -s "$SMOKE_TMP/d" "$SMOKE_TMP/body"
cli GET "/v1/pouches/$ada_pouch/blobs/$a"
expect_status 200
expect_true "the web user's blob, same bytes" cmp -s "$SMOKE_TMP/a" "$SMOKE_TMP/body"
check cli_device_checks_uploads_and_downloads_blobs_of_its_account

# --- other accounts ----------------------------------------------------------------------------
req GET "/v1/pouches/$ada_pouch/blobs/$a" "" -H "Authorization: Bearer $bob"
expect_error 404 not_found
check_blobs "$bob" "$ada_pouch" "$b 2000"
expect_error 404 not_found
upload "$bob" "$ada_pouch" "$a" "$SMOKE_TMP/a"
expect_error 404 not_found
check another_accounts_pouch_is_404_for_every_blob_path

req GET "/v1/pouches/$bob_pouch/blobs/$a" "" -H "Authorization: Bearer $bob"
expect_error 404 not_found
check_blobs "$bob" "$bob_pouch" "$a 1000"
expect_status 200
expect_json '.data.missing | join(",")' "$a"
check blobs_are_deduplicated_per_account_not_across

req GET "/v1/pouches/$(flow_uuid)/blobs/$a" "" -H "Authorization: Bearer $ada"
expect_error 404 not_found
check unknown_pouch_is_404

# --- concurrent uploads of one blob ------------------------------------------------------------
k=$(make_blob k 300000)
check_blobs "$bob" "$bob_pouch" "$k 300000"
before=$(blob_bytes "$bob_account")
for i in 1 2 3 4 5; do
    curl -sS -o /dev/null -w '%{http_code}\n' -X PUT --data-binary "@$SMOKE_TMP/k" \
        -H 'Content-Type: application/octet-stream' -H "Authorization: Bearer $bob" \
        "$POUCH_URL/v1/pouches/$bob_pouch/blobs/$k" >"$SMOKE_TMP/race.$i" &
done
wait
codes=$(sort "$SMOKE_TMP"/race.* | tr '\n' ' ')
expect_true "one 201 and four 200 (got $codes)" test "$codes" = "200 200 200 200 201 "
expect_true "one row" test "$(sql "SELECT count(*) FROM blobs WHERE account_id = '$bob_account' AND id = '$k'")" = 1
expect_true "bytes counted once" test "$(blob_bytes "$bob_account")" = $((before + 300000))
expect_true "one object with the bytes" cmp -s "$SMOKE_TMP/k" "$(blob_object "$bob_account" "$k")"
expect_true "no temporary files left" test "$(temp_files)" = 0
check concurrent_uploads_of_one_blob_end_with_one_row_and_one_file

smoke_done
