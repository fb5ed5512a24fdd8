# lib_cli.sh -- helpers for the CLI login smoke tests (tests/smoke/2*.sh): a web user with
# genesis, a CLI key pair with PKCE, DPoP proofs for a path, and the whole
# start -> approve -> redeem flow. Sourced after tests/smoke/lib.sh; relies on pouchctl
# ($POUCHCTL), jq and psql ($POUCH_DATABASE_URL).
# shellcheck shell=bash

: "${POUCHCTL:?POUCHCTL is not set (run through tools/stack/test.sh)}"

sql() { psql "$POUCH_DATABASE_URL" -XtAq -c "$1"; }
uuid() { cat /proc/sys/kernel/random/uuid; }
# repeat STRING N: STRING N times (multi-byte safe, unlike tr).
repeat() {
    local s
    printf -v s "%${2}s" ""
    printf '%s' "${s// /$1}"
}
# b64 N: N random bytes as b64url without padding.
b64() { head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }
RUN_ID=$(date +%s%N)
# b64url_decode TEXT: the bytes of unpadded b64url TEXT (e.g. a JWS segment).
b64url_decode() {
    local s=${1//-/+}
    s=${s//_//}
    while ((${#s} % 4)); do s+="="; done
    base64 -d <<<"$s"
}

# dpop KEY METHOD PATH [ACCESS_TOKEN] [extra pouchctl args]: a fresh proof for POUCH_URL+PATH.
dpop() {
    local key=$1 method=$2 path=$3 token=${4-}
    shift 3
    if (($# > 0)); then shift; fi
    if [[ -n $token ]]; then
        "$POUCHCTL" dpop --key "$key" --method "$method" --url "$POUCH_URL$path" --token "$token" "$@"
    else
        "$POUCHCTL" dpop --key "$key" --method "$method" --url "$POUCH_URL$path" "$@"
    fi
}

# web_user PREFIX: signs up a new user; sets WEB (session token), WEB_USER, WEB_ACCOUNT.
web_user() {
    req POST /v1/account/signup \
        "$(jq -nc --arg e "$1.$RUN_ID.$RANDOM@example.com" '{email:$e,password:"correct horse battery"}')"
    [[ $STATUS == 201 ]] || {
        echo "web_user: signup answered $STATUS: $BODY" >&2
        return 1
    }
    WEB=$(json .data.session_token)
    WEB_USER=$(json .data.user_id)
    WEB_ACCOUNT=$(json .data.storage_account_id)
}

# genesis_body POUCH MEMBER [N_STATEMENTS]: a genesis request with one envelope.
genesis_body() {
    local n=${3:-1}
    jq -nc --arg p "$1" --arg m "$2" --argjson n "$n" --arg s "$(b64 64)" --arg g "$(b64 64)" \
        --arg e "$(b64 32)" --arg c "$(b64 48)" '{
        statements: [range($n) | {statement: ($s + "s\(.)"), signature: $g}],
        key_envelopes: [{pouch_id:$p, member_id:$m, key_gen:1, hpke_enc:$e, ciphertext:$c,
                         created_by_member:$m, signature:$g}]}'
}

# genesis: genesis for the current WEB user; sets POUCH and MEMBER (the web member).
genesis() {
    POUCH=$(uuid)
    MEMBER=$(uuid)
    req POST /v1/account/roster/genesis "$(genesis_body "$POUCH" "$MEMBER")" \
        -H "Authorization: Bearer $WEB"
    [[ $STATUS == 201 ]] || {
        echo "genesis answered $STATUS: $BODY" >&2
        return 1
    }
}

# cli_keys NAME: a CLI's sign and enc keys and PKCE pair under $SMOKE_TMP/NAME; sets KEY
# (sign key file), SIGN_PUB, ENC_PUB, JKT, VERIFIER, CHALLENGE.
cli_keys() {
    KEY=$SMOKE_TMP/$1-sign.pem
    SIGN_PUB=$("$POUCHCTL" keygen --out "$KEY")
    ENC_PUB=$("$POUCHCTL" keygen --out "$SMOKE_TMP/$1-enc.pem")
    JKT=$("$POUCHCTL" jwk --key "$KEY" | jq -r .jkt)
    local p
    p=$("$POUCHCTL" pkce)
    VERIFIER=$(jq -r .verifier <<<"$p")
    CHALLENGE=$(jq -r .challenge <<<"$p")
}

# start_body [jq assignments...]: the op 5 body of the current keys, e.g.
# start_body '.device_name = "x"' or start_body 'del(.arch)'.
start_body() {
    local filter=${1:-.}
    jq -nc --arg ch "$CHALLENGE" --argjson s "$SIGN_PUB" --argjson e "$ENC_PUB" '{
        code_challenge:$ch, device_name:"laptop", os:"linux", arch:"x86_64",
        cli_version:"1.0.0", sign_pub:$s, enc_pub:$e, key_storage:"file",
        assistants:["claude"]}' | jq -c "$filter"
}

# start_login [BODY]: POST /v1/cli-auth/requests with a proof of KEY; sets REQ on 200.
start_login() {
    local body=${1:-$(start_body)}
    req POST /v1/cli-auth/requests "$body" \
        -H "DPoP: $(dpop "$KEY" POST /v1/cli-auth/requests)"
    REQ=""
    if [[ $STATUS == 200 ]]; then REQ=$(json .data.request_id); fi
}

# approve_body [MEMBER_OF_DEVICE] [CREATOR] [POUCH]: one envelope for a new device member.
approve_body() {
    local dm=${1:-$(uuid)} by=${2:-$MEMBER} p=${3:-$POUCH}
    jq -nc --arg p "$p" --arg m "$dm" --arg by "$by" --arg s "$(b64 64)" --arg g "$(b64 64)" \
        --arg w "$(b64 96)" --arg e "$(b64 32)" --arg c "$(b64 48)" '{
        statement: {statement:$s, signature:$g}, welcome:$w,
        key_envelopes: [{pouch_id:$p, member_id:$m, key_gen:1, hpke_enc:$e, ciphertext:$c,
                         created_by_member:$by, signature:$g}]}'
}

# approve ID [BODY]: the WEB user approves.
approve() {
    req POST "/v1/cli-auth/requests/$1/approve" "${2:-$(approve_body)}" \
        -H "Authorization: Bearer $WEB"
}

# redeem ID [WAIT] [VERIFIER] [KEYFILE]: POST /v1/cli-auth/token.
redeem() {
    local id=$1 wait=${2:-0} ver=${3:-$VERIFIER} key=${4:-$KEY}
    req POST /v1/cli-auth/token \
        "$(jq -nc --arg i "$id" --arg v "$ver" --argjson w "$wait" '{request_id:$i,code_verifier:$v,wait:$w}')" \
        -H "DPoP: $(dpop "$key" POST /v1/cli-auth/token)"
}

# enrol NAME: a whole login for the current WEB user (after genesis): new keys, start,
# approve, redeem. Sets KEY..., REQ, DEVICE, DEVICE_MEMBER, AT, RT.
enrol() {
    cli_keys "$1"
    start_login
    [[ $STATUS == 200 ]] || { echo "enrol: start answered $STATUS: $BODY" >&2; return 1; }
    DEVICE_MEMBER=$(uuid)
    approve "$REQ" "$(approve_body "$DEVICE_MEMBER")"
    [[ $STATUS == 200 ]] || { echo "enrol: approve answered $STATUS: $BODY" >&2; return 1; }
    DEVICE=$(json .data.device_id)
    redeem "$REQ"
    [[ $STATUS == 200 ]] || { echo "enrol: redeem answered $STATUS: $BODY" >&2; return 1; }
    AT=$(json .data.access_token)
    RT=$(json .data.refresh_token)
}

# cli_req METHOD PATH [BODY] [KEY] [TOKEN]: an authenticated CLI call with a fresh proof.
cli_req() {
    local method=$1 path=$2 body=${3-} key=${4:-$KEY} token=${5:-$AT}
    req "$method" "$path" "$body" -H "Authorization: DPoP $token" \
        -H "DPoP: $(dpop "$key" "$method" "${path%%\?*}" "$token")"
}

# web_req METHOD PATH [BODY]: a call with the WEB session.
web_req() { req "$1" "$2" "${3-}" -H "Authorization: Bearer $WEB"; }

# now_ms: wall clock in milliseconds.
now_ms() { date +%s%3N; }

# redeem_bg ID WAIT OUT: starts POST /v1/cli-auth/token in the background (own files, so
# foreground req calls do not interfere); when it answers, OUT.status, OUT.body and OUT.end
# (wall clock ms) appear. Sets BG_PID.
redeem_bg() {
    local id=$1 wait=$2 out=$3 proof body
    proof=$(dpop "$KEY" POST /v1/cli-auth/token)
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

# polling_started REQUEST_ID: true once the token endpoint has seen a valid poll of the request
# (it stamps last_poll_at before it starts waiting).
polling_started() { [[ $(sql "SELECT last_poll_at IS NOT NULL FROM cli_login_requests WHERE id = '$1'") == t ]]; }
