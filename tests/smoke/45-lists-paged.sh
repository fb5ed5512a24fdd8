#!/usr/bin/env bash
# 45-lists-paged.sh -- every list is paged with the one cursor design (decisions §13, issue 13):
# pouches, devices, key envelopes (with their filters), the roster, shares and plans follow
# `limit` and `meta.next_cursor` to the end in their documented order, `limit` is 1..1000,
# a cursor of another list (or another account, or another filter) is 400 invalid_cursor, and
# a page stops once its JSON passes 4 MiB (the roster and key envelopes, whose items are up to
# 87 KB and 6 KB). Before, these lists answered everything at once: one GET of 20,000 envelopes
# took the sync handler from 13 MB to 694 MB. Relies on tests/smoke/lib.sh, flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# walk PATH LIMIT FILTER [req args...]: follows next_cursor from the first page of PATH with
# `limit`; WALKED = the FILTER values of every item, comma-joined; PAGES = pages read.
walk() {
    local path=$1 limit=$2 filter=$3 sep cursor="" got=""
    shift 3
    PAGES=0
    while :; do
        [[ $path == *\?* ]] && sep="&" || sep="?"
        req GET "$path${sep}limit=$limit${cursor:+&cursor=$cursor}" "" "$@"
        [[ $STATUS == 200 ]] || { smoke_fail "page $PAGES of $path answered $STATUS: ${BODY:0:200}"; break; }
        PAGES=$((PAGES + 1))
        got+=$(json "[.data.items[] | $filter] | map(tostring + \",\") | add // \"\"")
        cursor=$(json .meta.next_cursor)
        [[ $cursor != null && $PAGES -lt 100 ]] || break
    done
    WALKED=${got%,}
}

flow_user lists
web=(-H "Authorization: Bearer $WEB_TOKEN")
OWNER_TOKEN=$WEB_TOKEN OWNER_MEMBER=$WEB_MEMBER OWNER_ACCOUNT=$WEB_ACCOUNT FIRST_POUCH=$POUCH
for n in 1 2 3; do flow_device "dev$n"; done
LAST_KEY=$DEVICE_KEY LAST_ACCESS=$ACCESS LAST_MEMBER=$DEVICE_MEMBER
flow_new_pouch "$WEB_TOKEN" "$WEB_MEMBER" >/dev/null
flow_new_pouch "$WEB_TOKEN" "$WEB_MEMBER" >/dev/null

# --- pouches and devices: creation order -------------------------------------------------------
walk /v1/pouches 2 .id "${web[@]}"
expect_true "pouches in creation order over $PAGES pages: $WALKED" \
    test "$WALKED" = "$(sql "SELECT string_agg(id::text, ',' ORDER BY created_at, id) FROM pouches WHERE account_id = '$OWNER_ACCOUNT'")"
expect_true "3 pouches in 2 pages" test "$PAGES" = 2
check pouches_page_in_creation_order

walk /v1/devices 1 .id "${web[@]}"
expect_true "devices in creation order: $WALKED" \
    test "$WALKED" = "$(sql "SELECT string_agg(id::text, ',' ORDER BY created_at, id) FROM devices WHERE account_id = '$OWNER_ACCOUNT'")"
expect_true "3 devices in 3 pages" test "$PAGES" = 3
web_req GET /v1/devices?limit=3
expect_json .meta.next_cursor null
check devices_page_in_creation_order_and_the_last_page_has_no_cursor

# --- key envelopes: (key_gen, member_id), filters bound into the cursor ----------------------
members=$(sql "SELECT string_agg(id::text, ',' ORDER BY id) FROM members WHERE account_id = '$OWNER_ACCOUNT'")
body=$(jq -nc --arg p "$FIRST_POUCH" --arg by "$OWNER_MEMBER" --arg ms "$members" --arg s "$(flow_b64 64)" \
    '{key_envelopes: [$ms | split(",")[] | {pouch_id:$p, member_id:., key_gen:2, hpke_enc:$s,
      ciphertext:$s, created_by_member:$by, signature:$s}]}')
web_req POST "/v1/pouches/$FIRST_POUCH/key-envelopes" "$body"
expect_status 200
envs="/v1/pouches/$FIRST_POUCH/key-envelopes"
walk "$envs" 3 '"\(.key_gen)/\(.member_id)"' "${web[@]}"
expect_true "envelopes by (key_gen, member_id): $WALKED" \
    test "$WALKED" = "$(sql "SELECT string_agg(key_gen || '/' || member_id, ',' ORDER BY key_gen, member_id) FROM key_envelopes WHERE pouch_id = '$FIRST_POUCH'")"
expect_true "8 envelopes in 3 pages" test "$PAGES:$(tr ',' '\n' <<<"$WALKED" | wc -l)" = 3:8
walk "$envs?key_gen=2" 2 .member_id "${web[@]}"
expect_true "key_gen 2 only: $WALKED" test "$WALKED" = "$members"
check key_envelopes_page_by_key_gen_then_member

web_req GET "$envs?key_gen=2&limit=1"
filtered_cursor=$(json .meta.next_cursor)
web_req GET "$envs?cursor=$filtered_cursor"
expect_error 400 invalid_cursor
web_req GET "$envs?key_gen=1&cursor=$filtered_cursor"
expect_error 400 invalid_cursor
web_req GET "$envs?key_gen=2&cursor=$filtered_cursor&limit=1000"
expect_status 200
expect_json '.data.items | length' 3
check a_key_envelope_cursor_continues_only_its_own_filter

DEVICE_KEY=$LAST_KEY ACCESS=$LAST_ACCESS cli_req GET "$envs?limit=1"
expect_status 200
expect_json '.data.items[0].member_id' "$LAST_MEMBER"
cli_cursor=$(json .meta.next_cursor)
DEVICE_KEY=$LAST_KEY ACCESS=$LAST_ACCESS cli_req GET "$envs?limit=1&cursor=$cli_cursor"
expect_json '[.data.items[].member_id] | unique | join(",")' "$LAST_MEMBER"
expect_json '.data.items | length' 1
expect_json .meta.next_cursor null
check a_device_pages_through_its_own_envelopes_only

# --- the roster: index order, `after` still works ---------------------------------------------
walk /v1/account/roster 2 .index "${web[@]}"
expect_true "roster 0..3 over 2 pages: $WALKED" test "$WALKED:$PAGES" = "0,1,2,3:2"
web_req GET "/v1/account/roster?after=1&limit=1"
expect_json '[.data.items[].index] | join(",")' 2
web_req GET "/v1/account/roster?after=1&cursor=$(json .meta.next_cursor)"
expect_error 400 validation_failed
expect_json .error.field '?after'
check roster_pages_in_index_order_and_after_still_works

# --- limits and foreign cursors, on every list ------------------------------------------------
web_req GET /v1/pouches?limit=1
pouch_cursor=$(json .meta.next_cursor)
for path in /v1/pouches /v1/devices "$envs" /v1/account/roster "/v1/pouches/$FIRST_POUCH/shares"; do
    web_req GET "$path?limit=0"
    expect_error 400 validation_failed
    expect_json .error.field '?limit'
    web_req GET "$path?limit=1001"
    expect_error 400 validation_failed
    web_req GET "$path?limit=1000"
    expect_status 200
    if [[ $path != /v1/pouches ]]; then
        web_req GET "$path?cursor=$pouch_cursor"
        expect_error 400 invalid_cursor
    fi
    web_req GET "$path?cursor=$(b64url 'pouches|1|x')"
    expect_error 400 invalid_cursor
done
check every_list_takes_limit_1_to_1000_and_refuses_foreign_cursors

flow_web_user other
web_req GET "/v1/pouches?cursor=$pouch_cursor"
expect_error 400 invalid_cursor
check a_cursor_of_another_account_is_invalid_cursor

# --- the 4 MiB page budget: roster statements of 87 KB, envelopes of 6 KB --------------------
WEB_TOKEN=$OWNER_TOKEN
sql "INSERT INTO roster_entries (account_id, idx, statement, signature)
     SELECT '$OWNER_ACCOUNT', 3 + g, repeat('s', 87382), repeat('g', 342) FROM generate_series(1, 60) g" >/dev/null
web_req GET "/v1/account/roster?limit=1000"
expect_status 200
n=$(json '.data.items | length')
expect_true "first page of $n statements, ${#BODY} bytes: past 4 MiB by less than one item" \
    test "${#BODY}" -gt 4194304 -a "${#BODY}" -lt $((4194304 + 90000))
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
walk /v1/account/roster 1000 .index "${web[@]}"
expect_true "all 64 statements over $PAGES pages" test "$(tr ',' '\n' <<<"$WALKED" | wc -l):$PAGES" = 64:2
check roster_page_stops_past_4_mib

sql "INSERT INTO members (id, account_id, kind) SELECT gen_random_uuid(), '$OWNER_ACCOUNT', 'web' FROM generate_series(1, 800)" >/dev/null
sql "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature)
     SELECT '$FIRST_POUCH', m.id, 1, repeat('h', 342), repeat('c', 5462), '$OWNER_MEMBER', repeat('s', 342)
       FROM members m WHERE m.account_id = '$OWNER_ACCOUNT' AND m.user_id IS NULL AND m.device_id IS NULL" >/dev/null
web_req GET "$envs?limit=1000"
expect_status 200
expect_true "envelope page of ${#BODY} bytes: past 4 MiB by less than one item" \
    test "${#BODY}" -gt 4194304 -a "${#BODY}" -lt $((4194304 + 7000))
walk "$envs" 1000 '"\(.key_gen)/\(.member_id)"' "${web[@]}"
expect_true "every envelope exactly once" \
    test "$(tr ',' '\n' <<<"$WALKED" | sort -u | wc -l):$(tr ',' '\n' <<<"$WALKED" | wc -l)" = "$(envelopes_total=$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$FIRST_POUCH'"); echo "$envelopes_total:$envelopes_total")"
check key_envelope_page_stops_past_4_mib

# The attack of the issue: 20,000 envelopes of 6 KB (123 MB) in one pouch, listed at once, took
# the sync handler from 13 MB to 694 MB. A page is 4 MiB whatever the pouch holds: 10,000 of
# them (61 MB) show it as well.
read -r BIG BIG_EPOCH < <(flow_new_pouch "$OWNER_TOKEN" "$OWNER_MEMBER")
sql "INSERT INTO members (id, account_id, kind) SELECT gen_random_uuid(), '$OWNER_ACCOUNT', 'web' FROM generate_series(1, 9200)" >/dev/null
sql "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature)
     SELECT '$BIG', m.id, 1, repeat('h', 342), repeat('c', 5462), '$OWNER_MEMBER', repeat('s', 342)
       FROM members m WHERE m.account_id = '$OWNER_ACCOUNT' AND m.user_id IS NULL AND m.device_id IS NULL" >/dev/null
old_pid=$(stack_handler_pid sync)
stack_handler_kill sync
retry 15 bash -c "[[ \$(cat '$POUCH_VAR/pids/sync.pid') != $old_pid ]]"
retry 15 bash -c "curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $OWNER_TOKEN' '$POUCH_URL/v1/pouches' | grep -q 200"
idle=$(awk '/^VmHWM:/ { print $2 }' "/proc/$(stack_handler_pid sync)/status")
# Each list's status and size in bytes, in its own file.
for i in 1 2 3 4; do
    curl -sS -o /dev/null -w '%{http_code} %{size_download}' -H "Authorization: Bearer $OWNER_TOKEN" \
        "$POUCH_URL/v1/pouches/$BIG/key-envelopes?limit=1000" >"$SMOKE_TMP/list.$i" 2>/dev/null &
done
wait
peak=$(awk '/^VmHWM:/ { print $2 }' "/proc/$(stack_handler_pid sync)/status")
echo "FIGURE envelope_list envelopes=$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$BIG'") stored_mb=$(sql "SELECT sum(length(hpke_enc) + length(ciphertext) + length(signature)) / 1000000 FROM key_envelopes WHERE pouch_id = '$BIG'") sync_peak_rss_kib=$peak (idle $idle, 4 lists at once)"
expect_true "sync peak RSS $peak KiB with 4 lists at once (want < 96 MiB)" test "$peak" -lt 98304
# The same first page once more, alone: each of the four was this page, byte for byte in size.
web_req GET "/v1/pouches/$BIG/key-envelopes?limit=1000"
expect_status 200
page_bytes=$(stat -c %s "$SMOKE_TMP/body")
expect_true "one page is ${page_bytes} bytes: past 4 MiB by less than one item" \
    test "$page_bytes" -gt 4194304 -a "$page_bytes" -lt $((4194304 + 7000))
lists=$(cat "$SMOKE_TMP"/list.[1-4] 2>/dev/null | tr '\n' ' ')
for i in 1 2 3 4; do
    expect_true "list $i answered '$(cat "$SMOKE_TMP/list.$i" 2>/dev/null)', want '200 $page_bytes' (all: $lists)" \
        test "$(cat "$SMOKE_TMP/list.$i" 2>/dev/null)" = "200 $page_bytes"
done
check listing_10000_envelopes_keeps_the_handler_small

smoke_done
