# flows.sh -- multi-step set-ups the smoke tests share: a web user with genesis done, and a
# CLI device enrolled through the real login (start, approve, token) with its keys on disk.
# Sourced after lib.sh; uses req/json and POUCHCTL. Each flow sets globals named after it.
# shellcheck shell=bash

flow_uuid() { cat /proc/sys/kernel/random/uuid; }
flow_b64() { head -c "${1:-32}" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

# flow_web_user: signs up a fresh user. Sets WEB_TOKEN, WEB_USER, WEB_ACCOUNT, WEB_EMAIL.
flow_web_user() {
    WEB_EMAIL="user.$(flow_uuid)@example.com"
    req POST /v1/account/signup "$(jq -nc --arg e "$WEB_EMAIL" '{email:$e,password:"correct horse battery"}')"
    [[ $STATUS == 201 ]] || { echo "flow_web_user: signup answered $STATUS: $BODY" >&2; return 1; }
    WEB_TOKEN=$(json .data.session_token)
    WEB_USER=$(json .data.user_id)
    WEB_ACCOUNT=$(json .data.storage_account_id)
}

# flow_genesis: genesis for the current web user. Sets WEB_MEMBER, POUCH, EPOCH.
flow_genesis() {
    WEB_MEMBER=$(flow_uuid)
    POUCH=$(flow_uuid)
    local body
    body=$(jq -nc --arg p "$POUCH" --arg m "$WEB_MEMBER" --arg s "$(flow_b64 64)" \
        --arg sig "$(flow_b64 64)" --arg enc "$(flow_b64 65)" --arg ct "$(flow_b64 48)" \
        '{statements:[{statement:$s,signature:$sig}],
          key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$enc,ciphertext:$ct,
                          created_by_member:$m,signature:$sig}]}')
    req POST /v1/account/roster/genesis "$body" -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 201 ]] || { echo "flow_genesis: answered $STATUS: $BODY" >&2; return 1; }
    req GET "/v1/pouches/$POUCH" "" -H "Authorization: Bearer $WEB_TOKEN"
    EPOCH=$(json .data.epoch)
}

# flow_dpop METHOD PATH [TOKEN]: a DPoP proof of the device key for POUCH_URL + PATH.
flow_dpop() {
    local args=(dpop --key "$DEVICE_KEY" --method "$1" --url "$POUCH_URL$2")
    [[ -n ${3:-} ]] && args+=(--token "$3")
    "$POUCHCTL" "${args[@]}"
}

# flow_device NAME: enrols a CLI device for the current web user (after flow_genesis).
# Sets DEVICE_KEY (sign key file), DEVICE_ID, DEVICE_MEMBER, ACCESS, REFRESH.
flow_device() {
    local dir
    dir=$(mktemp -d "$SMOKE_TMP/device.XXXXXX")
    DEVICE_KEY=$dir/sign.pem
    local sign enc pkce verifier challenge id
    sign=$("$POUCHCTL" keygen --out "$DEVICE_KEY")
    enc=$("$POUCHCTL" keygen --out "$dir/enc.pem")
    pkce=$("$POUCHCTL" pkce)
    verifier=$(jq -r .verifier <<<"$pkce")
    challenge=$(jq -r .challenge <<<"$pkce")
    req POST /v1/cli-auth/requests "$(jq -nc --arg c "$challenge" --arg n "${1:-laptop}" \
        --argjson s "$sign" --argjson e "$enc" \
        '{code_challenge:$c,device_name:$n,os:"linux",arch:"x86_64",cli_version:"1.0.0",
          sign_pub:$s,enc_pub:$e,key_storage:"file"}')" \
        -H "DPoP: $(flow_dpop POST /v1/cli-auth/requests)"
    [[ $STATUS == 200 ]] || { echo "flow_device: start answered $STATUS: $BODY" >&2; return 1; }
    id=$(json .data.request_id)
    DEVICE_MEMBER=$(flow_uuid)
    req POST "/v1/cli-auth/requests/$id/approve" "$(jq -nc --arg p "$POUCH" --arg m "$DEVICE_MEMBER" \
        --arg w "$WEB_MEMBER" --arg s "$(flow_b64 64)" --arg sig "$(flow_b64 64)" \
        --arg enc "$(flow_b64 65)" --arg ct "$(flow_b64 48)" \
        '{statement:{statement:$s,signature:$sig},welcome:$s,
          key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$enc,ciphertext:$ct,
                          created_by_member:$w,signature:$sig}]}')" \
        -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 200 ]] || { echo "flow_device: approve answered $STATUS: $BODY" >&2; return 1; }
    req POST /v1/cli-auth/token "$(jq -nc --arg i "$id" --arg v "$verifier" '{request_id:$i,code_verifier:$v}')" \
        -H "DPoP: $(flow_dpop POST /v1/cli-auth/token)"
    [[ $STATUS == 200 ]] || { echo "flow_device: token answered $STATUS: $BODY" >&2; return 1; }
    DEVICE_ID=$(json .data.device_id)
    ACCESS=$(json .data.access_token)
    REFRESH=$(json .data.refresh_token)
}

# cli_req METHOD PATH [BODY] [extra curl args...]: req as the enrolled device (fresh proof).
cli_req() {
    local method=$1 path=$2 body=${3-}
    shift 2
    if (($# > 0)); then shift; fi
    req "$method" "$path" "$body" -H "Authorization: DPoP $ACCESS" \
        -H "DPoP: $(flow_dpop "$method" "${path%%\?*}" "$ACCESS")" "$@"
}
