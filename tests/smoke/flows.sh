# flows.sh -- multi-step set-ups the smoke tests share (so do tests/faults and tools/bench):
# web users with genesis, the CLI login step by step (keys, start, approve, redeem) or whole
# (flow_device), requests as the enrolled device (cli_req) or the web user (web_req), pouches,
# commits and shares as a web caller. Sourced after lib.sh; relies on pouchctl ($POUCHCTL),
# jq and psql. Each flow leaves its results in globals named for what they hold:
#   flow_web_user     WEB_TOKEN WEB_USER WEB_ACCOUNT WEB_EMAIL
#   flow_genesis      WEB_MEMBER POUCH EPOCH (of the current web user)
#   flow_user         both of the above
#   flow_cli_keys     DEVICE_KEY (sign key file) SIGN_PUB ENC_PUB JKT VERIFIER CHALLENGE
#   flow_start_login  REQ
#   flow_device       all of flow_cli_keys and REQ, DEVICE_ID DEVICE_MEMBER ACCESS REFRESH
# shellcheck shell=bash
# shellcheck disable=SC2034  # the globals above are read by the scripts that source this

: "${POUCHCTL:?POUCHCTL is not set (run through tools/stack/test.sh)}"

flow_uuid() { cat /proc/sys/kernel/random/uuid; }
# flow_b64 [N]: N (default 32) random bytes as b64url without padding.
flow_b64() { head -c "${1:-32}" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

# --- web user and genesis ----------------------------------------------------------------------

# flow_web_user [PREFIX]: signs up a fresh user (email PREFIX.<uuid>@example.com).
flow_web_user() {
    WEB_EMAIL="${1:-user}.$(flow_uuid)@example.com"
    req POST /v1/account/signup "$(jq -nc --arg e "$WEB_EMAIL" '{email:$e,password:"correct horse battery"}')"
    [[ $STATUS == 201 ]] || { echo "flow_web_user: signup answered $STATUS: $BODY" >&2; return 1; }
    WEB_TOKEN=$(json .data.session_token)
    WEB_USER=$(json .data.user_id)
    WEB_ACCOUNT=$(json .data.storage_account_id)
}

# flow_genesis_body POUCH MEMBER [N_STATEMENTS]: a genesis request with one envelope. Statement
# 0 is a real genesis statement of MEMBER, signed with a fresh key (the service checks it,
# decisions §15); any further statements are opaque made-up strings.
flow_genesis_body() {
    local n=${3:-1} st
    st=$("$POUCHCTL" genesis-statement --member "$2") || return 1
    jq -nc --arg p "$1" --arg m "$2" --argjson n "$n" --argjson st "$st" --arg s "$(flow_b64 64)" \
        --arg g "$(flow_b64 64)" --arg e "$(flow_b64 32)" --arg c "$(flow_b64 48)" '{
        statements: ([$st] + [range(1; $n) | {statement: ($s + "s\(.)"), signature: $g}]),
        key_envelopes: [{pouch_id:$p, member_id:$m, key_gen:1, hpke_enc:$e, ciphertext:$c,
                         created_by_member:$m, signature:$g}]}'
}

# flow_genesis: genesis for the current web user. Leaves the genesis answer in STATUS/BODY.
flow_genesis() {
    WEB_MEMBER=$(flow_uuid)
    POUCH=$(flow_uuid)
    req POST /v1/account/roster/genesis "$(flow_genesis_body "$POUCH" "$WEB_MEMBER")" \
        -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 201 ]] || { echo "flow_genesis: answered $STATUS: $BODY" >&2; return 1; }
    EPOCH=$(sql "SELECT epoch FROM pouches WHERE id = '$POUCH'")
}

# flow_user [PREFIX]: flow_web_user, then flow_genesis: a fresh user with a roster and a pouch.
# shellcheck disable=SC2120  # PREFIX is optional
flow_user() {
    flow_web_user "$@" || return 1
    flow_genesis
}

# --- the CLI login -----------------------------------------------------------------------------

# flow_dpop KEY METHOD PATH [ACCESS_TOKEN] [extra pouchctl args]: a fresh proof for
# POUCH_URL + PATH.
flow_dpop() {
    local key=$1 method=$2 path=$3 token=${4-}
    shift 3
    if (($# > 0)); then shift; fi
    if [[ -n $token ]]; then
        "$POUCHCTL" dpop --key "$key" --method "$method" --url "$POUCH_URL$path" --token "$token" "$@"
    else
        "$POUCHCTL" dpop --key "$key" --method "$method" --url "$POUCH_URL$path" "$@"
    fi
}

# flow_cli_keys NAME: a CLI's sign and enc keys (in a fresh directory NAME.* under SMOKE_TMP)
# and a PKCE pair.
flow_cli_keys() {
    local dir p
    dir=$(mktemp -d "$SMOKE_TMP/$1.XXXXXX")
    DEVICE_KEY=$dir/sign.pem
    SIGN_PUB=$("$POUCHCTL" keygen --out "$DEVICE_KEY")
    ENC_PUB=$("$POUCHCTL" keygen --out "$dir/enc.pem")
    JKT=$("$POUCHCTL" jwk --key "$DEVICE_KEY" | jq -r .jkt)
    p=$("$POUCHCTL" pkce)
    VERIFIER=$(jq -r .verifier <<<"$p")
    CHALLENGE=$(jq -r .challenge <<<"$p")
}

# flow_start_body [FILTER]: the op 5 body of the current keys, through a jq FILTER, e.g.
# flow_start_body '.device_name = "x"' or flow_start_body 'del(.arch)'.
flow_start_body() {
    jq -nc --arg ch "$CHALLENGE" --argjson s "$SIGN_PUB" --argjson e "$ENC_PUB" '{
        code_challenge:$ch, device_name:"laptop", os:"linux", arch:"x86_64",
        cli_version:"1.0.0", sign_pub:$s, enc_pub:$e, key_storage:"file",
        assistants:["claude"]}' | jq -c "${1:-.}"
}

# flow_start_login [BODY]: POST /v1/cli-auth/requests with a proof of DEVICE_KEY; sets REQ
# on 200 (empty otherwise).
flow_start_login() {
    local body=${1:-$(flow_start_body)}
    req POST /v1/cli-auth/requests "$body" \
        -H "DPoP: $(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/requests)"
    REQ=""
    if [[ $STATUS == 200 ]]; then REQ=$(json .data.request_id); fi
}

# flow_approve_body [DEVICE_MEMBER] [CREATOR] [POUCH]: an approve body with one envelope for
# a new device member (defaults: a fresh id, WEB_MEMBER, POUCH).
flow_approve_body() {
    local dm=${1:-$(flow_uuid)} by=${2:-$WEB_MEMBER} p=${3:-$POUCH}
    jq -nc --arg p "$p" --arg m "$dm" --arg by "$by" --arg s "$(flow_b64 64)" --arg g "$(flow_b64 64)" \
        --arg w "$(flow_b64 96)" --arg e "$(flow_b64 32)" --arg c "$(flow_b64 48)" '{
        statement: {statement:$s, signature:$g}, welcome:$w,
        key_envelopes: [{pouch_id:$p, member_id:$m, key_gen:1, hpke_enc:$e, ciphertext:$c,
                         created_by_member:$by, signature:$g}]}'
}

# flow_approve ID [BODY]: the web user (WEB_TOKEN) approves the request.
flow_approve() {
    req POST "/v1/cli-auth/requests/$1/approve" "${2:-$(flow_approve_body)}" \
        -H "Authorization: Bearer $WEB_TOKEN"
}

# flow_approve_timed ID: flow_approve with a fresh body, timed for wake-up checks: sets
# APPROVE_SENT and APPROVE_ANSWERED (wall clock ms) around the request alone. The body is
# built first: its forks, under load on two cores, can take most of a second.
flow_approve_timed() {
    local body
    body=$(flow_approve_body)
    APPROVE_SENT=$(now_ms)
    flow_approve "$1" "$body"
    APPROVE_ANSWERED=$(now_ms)
}

# flow_redeem ID [WAIT] [VERIFIER] [KEYFILE]: POST /v1/cli-auth/token.
flow_redeem() {
    local id=$1 wait=${2:-0} ver=${3:-$VERIFIER} key=${4:-$DEVICE_KEY}
    req POST /v1/cli-auth/token \
        "$(jq -nc --arg i "$id" --arg v "$ver" --argjson w "$wait" '{request_id:$i,code_verifier:$v,wait:$w}')" \
        -H "DPoP: $(flow_dpop "$key" POST /v1/cli-auth/token)"
}

# flow_redeem_bg ID WAIT OUT: starts POST /v1/cli-auth/token in the background (own files, so
# foreground req calls do not interfere); when it answers, OUT.status, OUT.body and OUT.end
# (wall clock ms) appear. Sets BG_PID.
flow_redeem_bg() {
    local id=$1 wait=$2 out=$3 proof body
    proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/token)
    body=$(jq -nc --arg i "$id" --arg v "$VERIFIER" --argjson w "$wait" '{request_id:$i,code_verifier:$v,wait:$w}')
    rm -f "$out".status "$out".body "$out".end
    (
        code=$(curl -sS -X POST -o "$out.body" -w '%{http_code}' --max-time 60 \
            -H 'Content-Type: application/json' -H "DPoP: $proof" --data-binary "$body" \
            "$POUCH_URL/v1/cli-auth/token" 2>/dev/null) || code=000
        now_ms >"$out.end"
        echo "$code" >"$out.status"
    ) &
    BG_PID=$!
}

# flow_polling_started REQUEST_ID: true once the token endpoint has seen a valid poll of the
# request (it stamps last_poll_at before it starts waiting).
flow_polling_started() {
    [[ $(sql "SELECT last_poll_at IS NOT NULL FROM cli_login_requests WHERE id = '$1'") == t ]]
}

# flow_device NAME: a whole login for the current web user (after flow_genesis): new keys,
# start (device_name NAME), approve, redeem.
flow_device() {
    flow_cli_keys "$1"
    flow_start_login "$(flow_start_body ".device_name = \"$1\"")"
    [[ $STATUS == 200 ]] || { echo "flow_device: start answered $STATUS: $BODY" >&2; return 1; }
    DEVICE_MEMBER=$(flow_uuid)
    flow_approve "$REQ" "$(flow_approve_body "$DEVICE_MEMBER")"
    [[ $STATUS == 200 ]] || { echo "flow_device: approve answered $STATUS: $BODY" >&2; return 1; }
    flow_redeem "$REQ"
    [[ $STATUS == 200 ]] || { echo "flow_device: redeem answered $STATUS: $BODY" >&2; return 1; }
    DEVICE_ID=$(json .data.device_id)
    ACCESS=$(json .data.access_token)
    REFRESH=$(json .data.refresh_token)
}

# cli_req METHOD PATH [BODY] [extra curl args...]: req as the enrolled device, with a fresh
# proof. Another device or token for one call: DEVICE_KEY=... ACCESS=... cli_req ...
cli_req() {
    local method=$1 path=$2 body=${3-}
    shift 2
    if (($# > 0)); then shift; fi
    req "$method" "$path" "$body" -H "Authorization: DPoP $ACCESS" \
        -H "DPoP: $(flow_dpop "$DEVICE_KEY" "$method" "${path%%\?*}" "$ACCESS")" "$@"
}

# flow_restart_handler GROUP PATH: a fresh process of the group (its peak memory starts over),
# once GET PATH through it answers 200 to the web user (WEB_TOKEN).
flow_restart_handler() {
    local old
    old=$(stack_handler_pid "$1")
    stack_handler_kill "$1"
    retry 15 bash -c "[[ \$(cat '$POUCH_VAR/pids/$1.pid') != $old ]]"
    retry 15 bash -c "curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $WEB_TOKEN' '$POUCH_URL$2' | grep -q 200"
}

# web_req METHOD PATH [BODY]: req with the web user's session (WEB_TOKEN).
web_req() { req "$1" "$2" "${3-}" -H "Authorization: Bearer $WEB_TOKEN"; }

# --- pouches, commits and shares as a web caller -----------------------------------------------

# flow_new_pouch TOKEN MEMBER: POST /v1/pouches; prints "pouch epoch".
flow_new_pouch() {
    local p
    p=$(flow_uuid)
    req POST /v1/pouches "$(jq -nc --arg p "$p" --arg m "$2" --arg s "$(flow_b64 32)" \
        '{id:$p,key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$s,ciphertext:$s,
                                 created_by_member:$m,signature:$s}]}')" \
        -H "Authorization: Bearer $1"
    [[ $STATUS == 201 ]] || { echo "flow_new_pouch: answered $STATUS: $BODY" >&2; return 1; }
    echo "$p $(json .data.epoch)"
}

# flow_op TYPE ARTIFACT REVISION BASE|null ENVELOPE MEMBER: one commit operation (JSON).
flow_op() {
    jq -nc --arg t "$1" --arg a "$2" --arg r "$3" --arg b "$4" --arg e "$5" --arg m "$6" \
        --arg sig "$(flow_b64 64)" \
        '{type:$t, artifact_id:$a, revision_id:$r,
          base_revision_id:(if $b == "null" then null else $b end), key_gen:1, envelope:$e,
          signature:$sig, signer_member_id:$m, blob_ids:[]}'
}

# flow_commit TOKEN POUCH EPOCH OPS...: POST .../operations with those ops (JSON objects, or
# "@file" for one op kept in a file) as a web caller; the body goes through a file, so
# megabyte envelopes fit. Leaves the answer in STATUS/BODY; fails unless every op applied.
flow_commit() {
    local token=$1 pouch=$2 epoch=$3 o
    shift 3
    for o in "$@"; do
        if [[ $o == @* ]]; then cat "${o#@}"; else printf '%s\n' "$o"; fi
    done | jq -sc --arg o "$(flow_uuid)" --arg e "$epoch" \
        '{operation_id:$o, epoch:$e, ops:.}' >"$SMOKE_TMP/commit.json"
    req POST "/v1/pouches/$pouch/operations" "@$SMOKE_TMP/commit.json" \
        -H "Authorization: Bearer $token"
    [[ $STATUS == 200 && $(json '[.data.results[] | select(.status != "applied")] | length') == 0 ]] ||
        { echo "flow_commit: answered $STATUS: ${BODY:0:300}" >&2; return 1; }
}

# flow_put_new TOKEN POUCH EPOCH MEMBER ENVELOPE: creates one artifact; prints
# "artifact revision".
flow_put_new() {
    local a r
    a=$(flow_uuid)
    r=$(flow_uuid)
    flow_commit "$1" "$2" "$3" "$(flow_op put "$a" "$r" null "$5" "$4")" || return 1
    echo "$a $r"
}

# flow_share_body ID [extra jq object merged in]: a small valid share create body.
flow_share_body() {
    jq -nc --arg i "$1" --argjson x "${2:-{\}}" '{id:$i,bundle:"c2VhbGVkLWJ1bmRsZQ",label_enc:"bGFiZWw"} + $x'
}
