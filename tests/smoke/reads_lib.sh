# reads_lib.sh -- setup shared by the read-path smoke tests (40-44: events, artifacts,
# revisions): web users with genesis (tests/smoke/flows.sh) and revisions written through
# the commit endpoint (op 1) as a web caller. Sourced after lib.sh and flows.sh.
# shellcheck shell=bash

sql() { psql "$POUCH_DATABASE_URL" -XtAq -c "$1"; }
new_uuid() { flow_uuid; }

# new_user: signs up a fresh user and runs genesis. Sets U_TOKEN, U_ACCOUNT, U_MEMBER,
# U_POUCH and U_EPOCH (copy them before the next call).
new_user() {
    flow_web_user || return 1
    flow_genesis || return 1
    U_TOKEN=$WEB_TOKEN U_ACCOUNT=$WEB_ACCOUNT U_MEMBER=$WEB_MEMBER U_POUCH=$POUCH U_EPOCH=$EPOCH
}

# new_pouch TOKEN MEMBER: POST /v1/pouches; prints "pouch epoch".
new_pouch() {
    local p
    p=$(new_uuid)
    req POST /v1/pouches "$(jq -nc --arg p "$p" --arg m "$2" --arg s "$(flow_b64 32)" \
        '{id:$p,key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$s,ciphertext:$s,
                                 created_by_member:$m,signature:$s}]}')" \
        -H "Authorization: Bearer $1"
    [[ $STATUS == 201 ]] || { echo "setup: create pouch answered $STATUS: $BODY" >&2; return 1; }
    echo "$p $(json .data.epoch)"
}

# op TYPE ARTIFACT REVISION BASE|null ENVELOPE MEMBER: one commit operation (JSON).
op() {
    jq -nc --arg t "$1" --arg a "$2" --arg r "$3" --arg b "$4" --arg e "$5" --arg m "$6" \
        --arg sig "$(flow_b64 64)" \
        '{type:$t, artifact_id:$a, revision_id:$r,
          base_revision_id:(if $b == "null" then null else $b end), key_gen:1, envelope:$e,
          signature:$sig, signer_member_id:$m, blob_ids:[]}'
}

# commit TOKEN POUCH EPOCH OPS...: POST .../operations with those ops (JSON objects, or
# "@file" for one op kept in a file) as a web caller; the body goes through a file, so
# megabyte envelopes fit. Leaves the answer in STATUS/BODY; fails unless every op applied.
commit() {
    local token=$1 pouch=$2 epoch=$3 o
    shift 3
    for o in "$@"; do
        if [[ $o == @* ]]; then cat "${o#@}"; else printf '%s\n' "$o"; fi
    done | jq -sc --arg o "$(new_uuid)" --arg e "$epoch" \
        '{operation_id:$o, epoch:$e, ops:.}' >"$SMOKE_TMP/commit.json"
    req POST "/v1/pouches/$pouch/operations" "@$SMOKE_TMP/commit.json" \
        -H "Authorization: Bearer $token"
    [[ $STATUS == 200 && $(json '[.data.results[] | select(.status != "applied")] | length') == 0 ]] ||
        { echo "setup: commit answered $STATUS: ${BODY:0:300}" >&2; return 1; }
}

# put_new TOKEN POUCH EPOCH MEMBER ENVELOPE: creates one artifact; prints "artifact revision".
put_new() {
    local a r
    a=$(new_uuid)
    r=$(new_uuid)
    commit "$1" "$2" "$3" "$(op put "$a" "$r" null "$5" "$4")" || return 1
    echo "$a $r"
}
