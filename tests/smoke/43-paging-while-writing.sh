#!/usr/bin/env bash
# 43-paging-while-writing.sh -- keyset paging of the artifact list while commits land
# (decisions §5.4): a pass never misses an artifact that existed before it started, and an
# artifact updated during the pass shows up again with its new head (an update raises its
# head seq past the cursor). Once with writes interleaved page by page, once with a
# concurrent writer. Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_user
auth=(-H "Authorization: Bearer $WEB_TOKEN")
list="/v1/pouches/$POUCH/artifacts"
declare -A head  # artifact -> its current head revision

# create_many N: N new artifacts in one commit; their ids are appended to CREATED.
CREATED=()
create_many() {
    local ops=() a r i
    for ((i = 0; i < $1; i++)); do
        a=$(flow_uuid) r=$(flow_uuid)
        ops+=("$(flow_op put "$a" "$r" null "env-$a" "$WEB_MEMBER")")
        head[$a]=$r
        CREATED+=("$a")
    done
    flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "${ops[@]}"
}

# update ARTIFACT: a new head revision; prints nothing, sets head[ARTIFACT].
update() {
    local r
    r=$(flow_uuid)
    flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "$(flow_op put "$1" "$r" "${head[$1]}" "upd-$r" "$WEB_MEMBER")"
    head[$1]=$r
}

# --- writes between pages -------------------------------------------------------------------
create_many 30
before=("${CREATED[@]}")
declare -A seen_rev=()     # "artifact revision" pairs seen during the pass
declare -A seen=()         # artifacts seen
declare -A want_again=()   # artifact -> head it got after it was seen
cursor=""
pages=0
while :; do
    req GET "$list?limit=4${cursor:+&cursor=$cursor}" "" "${auth[@]}"
    [[ $STATUS == 200 ]] || { smoke_fail "page $pages answered $STATUS"; break; }
    pages=$((pages + 1))
    first=""
    while read -r a r; do
        seen[$a]=1
        seen_rev["$a $r"]=1
        [[ -n $first ]] || first=$a
    done < <(json '.data.items[] | "\(.id) \(.head.id)"')
    cursor=$(json '.meta.next_cursor // empty')
    [[ -n $cursor && $pages -lt 100 ]] || break
    # One artifact of this page changes, one not yet seen changes, one is created.
    update "$first"
    want_again[$first]=${head[$first]}
    for a in "${before[@]}"; do
        if [[ -z ${seen[$a]-} ]]; then update "$a"; break; fi
    done
    create_many 1
done
missed=()
for a in "${before[@]}"; do [[ -n ${seen[$a]-} ]] || missed+=("$a"); done
expect_true "missed ${#missed[@]} of ${#before[@]}: ${missed[*]}" test "${#missed[@]}" = 0
not_again=()
for a in "${!want_again[@]}"; do
    [[ -n ${seen_rev["$a ${want_again[$a]}"]-} ]] || not_again+=("$a")
done
expect_true "updated during the pass but not shown again: ${not_again[*]}" test "${#not_again[@]}" = 0
expect_true "the pass updated ${#want_again[@]} seen artifacts (want > 5)" test "${#want_again[@]}" -gt 5
expect_true "the pass ended ($pages pages)" test "$pages" -lt 100
check artifacts_pass_with_interleaved_writes_misses_nothing_and_reshows_updates

# The updated artifacts' new heads are what the list shows now.
req GET "$list?limit=500" "" "${auth[@]}"
wrong=$(json '.data.items[] | "\(.id) \(.head.id)"' | while read -r a r; do
    [[ ${head[$a]-} == "$r" ]] || echo "$a"
done)
expect_true "heads differ for: $wrong" test -z "$wrong"
check artifacts_list_shows_each_artifacts_latest_head

# --- a concurrent writer --------------------------------------------------------------------
CREATED=()
create_many 40
before=("${CREATED[@]}")
stop=$SMOKE_TMP/writer.stop
(
    # 60 updates of random existing artifacts plus a new one every 5th, as fast as it can;
    # its own scratch directory, since req keeps the last answer in SMOKE_TMP.
    SMOKE_TMP=$SMOKE_TMP/writer
    mkdir -p "$SMOKE_TMP"
    for ((i = 0; i < 60; i++)); do
        [[ -e $stop ]] && break
        a=${before[RANDOM % ${#before[@]}]}
        update "$a" || echo "writer: update failed" >&2
        ((i % 5)) || create_many 1
    done
    echo "$i" >"$SMOKE_TMP/count"
) &
writer=$!
seen=()
cursor=""
pages=0
while :; do
    req GET "$list?limit=3${cursor:+&cursor=$cursor}" "" "${auth[@]}"
    [[ $STATUS == 200 ]] || { smoke_fail "page $pages answered $STATUS"; break; }
    pages=$((pages + 1))
    while read -r a; do seen[$a]=1; done < <(json '.data.items[].id')
    cursor=$(json '.meta.next_cursor // empty')
    [[ -n $cursor && $pages -lt 500 ]] || break
done
touch "$stop"
wait "$writer"
missed=()
for a in "${before[@]}"; do [[ -n ${seen[$a]-} ]] || missed+=("$a"); done
expect_true "missed ${#missed[@]}: ${missed[*]}" test "${#missed[@]}" = 0
expect_true "the writer committed during the pass ($(cat "$SMOKE_TMP/writer/count") updates)" \
    test "$(cat "$SMOKE_TMP/writer/count")" -gt 0
check artifacts_pass_with_a_concurrent_writer_misses_nothing

smoke_done
