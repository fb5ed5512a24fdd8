#!/usr/bin/env bash
# 80-matrix.sh -- the permission matrix (issue 7 part 4): every route of every handler group x
# every kind of caller, each answer checked against ONE table (tests/smoke/matrix.tsv: status
# and error code per caller). One PASS/FAIL line per cell, named
# matrix:METHOD:PATH_TEMPLATE:CALLER. Fixtures are made once (accounts with genesis, a pouch,
# an artifact, a share, a blob, devices, one revoked); resources a cell would destroy are made
# fresh for that cell (see the placeholders in matrix.tsv). Relies on lib.sh and flows.sh,
# pouchctl, psql, b3sum.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

TABLE=${POUCH_MATRIX_TABLE:-$(dirname "$0")/matrix.tsv}
CALLERS=(none web_a web_b cli_a revoked_a support admin)

die_setup() {
    echo "FAIL matrix_setup: $*"
    smoke_done
}

# --- fixtures --------------------------------------------------------------------------------
declare -A TOKEN MEMBER POUCH_OF KEYFILE USER_OF

# web_account NAME [ROLE]: a web user with genesis (and a role set by the operator tool).
web_account() {
    flow_web_user || die_setup "signup of $1"
    flow_genesis || die_setup "genesis of $1"
    TOKEN[$1]=$WEB_TOKEN
    MEMBER[$1]=$WEB_MEMBER
    POUCH_OF[$1]=$POUCH
    USER_OF[$1]=$WEB_USER
    if [[ -n ${2:-} ]]; then
        "$POUCHCTL" user role "$WEB_EMAIL" "$2" --reason "80-matrix" >/dev/null || die_setup "role $2"
    fi
}

web_account admin admin
web_account support support
web_account web_b
web_account web_a
A_EMAIL=$WEB_EMAIL
A_TOKEN=$WEB_TOKEN
A_MEMBER=$WEB_MEMBER
A_POUCH=$POUCH
A_EPOCH=$EPOCH

# as_a: the flows.sh globals of user A (flow_device enrols into them).
as_a() {
    WEB_TOKEN=$A_TOKEN
    WEB_MEMBER=$A_MEMBER
    POUCH=$A_POUCH
}

as_a
flow_device revoked-laptop || die_setup "device to revoke"
REVOKED_ID=$DEVICE_ID
TOKEN[revoked_a]=$ACCESS
KEYFILE[revoked_a]=$DEVICE_KEY
MEMBER[revoked_a]=$DEVICE_MEMBER
POUCH_OF[revoked_a]=$A_POUCH
req POST "/v1/devices/$REVOKED_ID/revoke" '{}' -H "Authorization: Bearer $A_TOKEN"
[[ $STATUS == 200 ]] || die_setup "revoke answered $STATUS: $BODY"

flow_device laptop || die_setup "device of A"
CLI_ID=$DEVICE_ID
TOKEN[cli_a]=$ACCESS
KEYFILE[cli_a]=$DEVICE_KEY
MEMBER[cli_a]=$DEVICE_MEMBER
POUCH_OF[cli_a]=$A_POUCH
TOKEN[web_a]=$A_TOKEN
MEMBER[web_a]=$A_MEMBER
POUCH_OF[web_a]=$A_POUCH

web=(-H "Authorization: Bearer $A_TOKEN")
ARTIFACT=$(flow_uuid)
req POST "/v1/pouches/$A_POUCH/operations" "$(jq -nc --arg o "$(flow_uuid)" --arg e "$A_EPOCH" \
    --arg a "$ARTIFACT" --arg r "$(flow_uuid)" --arg m "$A_MEMBER" \
    '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,
      key_gen:1,envelope:"ZW52",signature:"c2ln",signer_member_id:$m,blob_ids:[]}]}')" "${web[@]}"
[[ $(json '.data.results[0].status') == applied ]] || die_setup "commit answered $STATUS: $BODY"

# new_share: a share of A's pouch; prints its id.
new_share() {
    local id
    id=$(flow_uuid)
    req POST "/v1/pouches/$A_POUCH/shares" "{\"id\":\"$id\",\"bundle\":\"YnVuZGxl\",\"label_enc\":\"bGFiZWw\"}" "${web[@]}"
    [[ $STATUS == 201 ]] || die_setup "share create answered $STATUS: $BODY"
    printf '%s' "$id"
}
SHARE=$(new_share)

# new_blob FILE: random bytes in FILE, reserved by A; sets NEW_BLOB_ID and NEW_BLOB_SIZE.
new_blob() {
    NEW_BLOB_SIZE=$((100 + RANDOM % 900))
    head -c "$NEW_BLOB_SIZE" /dev/urandom >"$1"
    NEW_BLOB_ID=$(b3sum --raw "$1" | basenc --base64url | tr -d '=')
    req POST "/v1/pouches/$A_POUCH/blobs/check" \
        "{\"blobs\":[{\"id\":\"$NEW_BLOB_ID\",\"stored_size\":$NEW_BLOB_SIZE}]}" "${web[@]}"
    [[ $STATUS == 200 ]] || die_setup "blob check answered $STATUS: $BODY"
}
new_blob "$SMOKE_TMP/fixture-blob"
BLOB=$NEW_BLOB_ID
BLOB_SIZE=$NEW_BLOB_SIZE
req PUT "/v1/pouches/$A_POUCH/blobs/$BLOB" "@$SMOKE_TMP/fixture-blob" \
    -H 'Content-Type: application/octet-stream' "${web[@]}"
[[ $STATUS == 201 ]] || die_setup "blob upload answered $STATUS: $BODY"

req GET /v1/admin/plans "" -H "Authorization: Bearer ${TOKEN[admin]}"
PLAN=$(json '.data.items[0].id')
PLAN_DESC=$(jq -c '.data.items[0].description' <<<"$BODY")
[[ -n $PLAN && $PLAN != null ]] || die_setup "plans answered $STATUS: $BODY"

# pending_login: a fresh login request (started, not decided); sets REQ and the globals of
# flow_cli_keys (DEVICE_KEY, VERIFIER, ...).
pending_login() {
    flow_cli_keys login
    flow_start_login
    [[ $STATUS == 200 ]] || die_setup "login start answered $STATUS: $BODY"
}
# approved_login: a fresh login approved by A; sets the same globals.
approved_login() {
    pending_login
    as_a
    flow_approve "$REQ"
    [[ $STATUS == 200 ]] || die_setup "approve answered $STATUS: $BODY"
}

# --- one cell --------------------------------------------------------------------------------
declare -A VAL
ROW_PROOF_KEY=""    # a row whose endpoint proves possession of its own key (start, token, refresh)
ROW_BODY_FILE=""

declare -A CACHE     # fresh resources minted for this row, reused by cells that are refused
CACHE_PROOF_KEY=""

# fill_placeholders CALLER TEXT REUSE: sets VAL[name] for every {name} in TEXT. Fresh
# resources are minted anew unless REUSE is 1 (a cell expected to be refused, which changes
# nothing) and this row already minted one: that keeps the run short.
fill_placeholders() {
    local caller=$1 text=$2 reuse=$3 name
    VAL=()
    ROW_PROOF_KEY=""
    ROW_BODY_FILE=""
    while read -r name; do
        [[ -n $name ]] || continue
        case $name in
            freshShare | freshBlob | freshDevice | refreshToken | pendingLogin | approvedLogin | startBody)
                if ((reuse)) && [[ -n ${CACHE[$name]:-} ]]; then
                    VAL[$name]=${CACHE[$name]}
                    VAL[verifier]=${CACHE[verifier]:-}
                    ROW_PROOF_KEY=$CACHE_PROOF_KEY
                    ROW_BODY_FILE=$SMOKE_TMP/cell-blob
                    continue
                fi
                ;;
        esac
        case $name in
            pouchId) VAL[$name]=$A_POUCH ;;
            epoch) VAL[$name]=$A_EPOCH ;;
            artifactId) VAL[$name]=$ARTIFACT ;;
            shareId) VAL[$name]=$SHARE ;;
            blobId) VAL[$name]=$BLOB ;;
            blobSize) VAL[$name]=$BLOB_SIZE ;;
            deviceId) VAL[$name]=$CLI_ID ;;
            revokedDevice) VAL[$name]=$REVOKED_ID ;;
            pouchB) VAL[$name]=${POUCH_OF[web_b]} ;;
            userB) VAL[$name]=${USER_OF[web_b]} ;;
            planId) VAL[$name]=$PLAN ;;
            planDesc) VAL[$name]=$PLAN_DESC ;;
            emailA) VAL[$name]=$A_EMAIL ;;
            uuid[0-9]) VAL[$name]=$(flow_uuid) ;;
            b64) VAL[$name]=$(flow_b64 48) ;;
            email) VAL[$name]="matrix.$(flow_uuid)@example.com" ;;
            callerMember) VAL[$name]=${MEMBER[$caller]:-$(flow_uuid)} ;;
            callerPouch) VAL[$name]=${POUCH_OF[$caller]:-$(flow_uuid)} ;;
            freshShare) VAL[$name]=$(new_share) ;;
            freshBlob)
                ROW_BODY_FILE=$SMOKE_TMP/cell-blob
                new_blob "$ROW_BODY_FILE"
                VAL[$name]=$NEW_BLOB_ID
                ;;
            freshDevice)
                as_a
                flow_device fresh || die_setup "fresh device"
                VAL[$name]=$DEVICE_ID
                ;;
            refreshToken)
                as_a
                flow_device fresh || die_setup "fresh device"
                VAL[$name]=$REFRESH
                ROW_PROOF_KEY=$DEVICE_KEY
                ;;
            pendingLogin)
                pending_login
                VAL[$name]=$REQ
                ;;
            approvedLogin)
                approved_login
                VAL[$name]=$REQ
                VAL[verifier]=$VERIFIER
                ROW_PROOF_KEY=$DEVICE_KEY
                ;;
            verifier) ;;  # set with approvedLogin
            startBody)
                flow_cli_keys login
                VAL[$name]=$(flow_start_body)
                ROW_PROOF_KEY=$DEVICE_KEY
                ;;
            *) die_setup "unknown placeholder {$name} in $TABLE" ;;
        esac
    done < <(while [[ $text =~ \{([A-Za-z0-9]+)\} ]]; do # each {name}, in pure bash (fast)
        echo "${BASH_REMATCH[1]}"
        text=${text#*"${BASH_REMATCH[0]}"}
    done)
    for name in freshShare freshBlob freshDevice refreshToken pendingLogin approvedLogin verifier startBody; do
        if [[ -n ${VAL[$name]:-} ]]; then CACHE[$name]=${VAL[$name]}; fi
    done
    CACHE_PROOF_KEY=$ROW_PROOF_KEY
}

# substitute TEXT: TEXT with every {name} replaced by VAL[name].
substitute() {
    local out=$1 name
    for name in "${!VAL[@]}"; do out=${out//"{$name}"/"${VAL[$name]}"}; done
    printf '%s' "$out"
}

# call CALLER METHOD PATH BODY: the request as that caller.
call() {
    local caller=$1 method=$2 path=$3 body=$4 args=()
    if [[ $body == "@blob" ]]; then
        body="@$ROW_BODY_FILE"
        args+=(-H 'Content-Type: application/octet-stream')
    fi
    case $caller in
        none) ;;
        cli_a | revoked_a)
            args+=(-H "Authorization: DPoP ${TOKEN[$caller]}")
            if [[ -n $ROW_PROOF_KEY ]]; then
                args+=(-H "DPoP: $(flow_dpop "$ROW_PROOF_KEY" "$method" "${path%%\?*}")")
            else
                args+=(-H "DPoP: $(flow_dpop "${KEYFILE[$caller]}" "$method" "${path%%\?*}" "${TOKEN[$caller]}")")
            fi
            # Every body a CLI proves with Service-Signature (Route.signed_body): commits and
            # the sharing writes (docs/SHARING.md §9).
            if [[ $method == POST && $path =~ /(operations|access|leave|invitations|accept|decline|withdraw)$ ]]; then
                args+=(-H "Service-Signature: $("$POUCHCTL" sign-body --key "${KEYFILE[$caller]}" <<<"$body")")
            fi
            ;;
        *) args+=(-H "Authorization: Bearer ${TOKEN[$caller]}") ;;
    esac
    if [[ -n $ROW_PROOF_KEY && $caller != cli_a && $caller != revoked_a ]]; then
        args+=(-H "DPoP: $(flow_dpop "$ROW_PROOF_KEY" "$method" "${path%%\?*}")")
    fi
    req "$method" "$path" "$body" "${args[@]}"
}

# --- the table -------------------------------------------------------------------------------
started=$SECONDS
cells=0
while IFS=$'\t' read -r -u 3 method template body_t rest; do
    [[ -z $method || $method == \#* ]] && continue
    IFS=$'\t' read -r -a expected <<<"$rest"
    if ((${#expected[@]} != ${#CALLERS[@]})); then
        echo "FAIL matrix:$method:$template: ${#expected[@]} expectation columns, want ${#CALLERS[@]}"
        SMOKE_FAILED=$((SMOKE_FAILED + 1))
        continue
    fi
    CACHE=()
    row_started=$SECONDS
    for i in "${!CALLERS[@]}"; do
        caller=${CALLERS[$i]}
        want=${expected[$i]}
        reuse=1
        [[ $want == 2* ]] && reuse=0
        fill_placeholders "$caller" "$template $body_t" "$reuse"
        path=$(substitute "$template")
        body=""
        [[ $body_t == - ]] || body=$(substitute "$body_t")
        call "$caller" "$method" "$path" "$body"
        cells=$((cells + 1))
        # One jq per cell (the run must stay short): status, ok, error code, request id.
        got=$(jq -r '[.ok, (.error.code // "-"), .meta.request_id] | join(" ")' <<<"$BODY" 2>/dev/null) ||
            got="bytes"   # a blob download answers its bytes
        want_code=-
        want_ok=true
        [[ $want == *" "* ]] && want_code=${want#* } want_ok=false
        if [[ $got == bytes ]]; then
            [[ $STATUS == "$want" ]] || smoke_fail "status $STATUS, want $want"
        else
            read -r ok code rid <<<"$got"
            [[ "$STATUS $ok $code" == "${want%% *} $want_ok $want_code" ]] ||
                smoke_fail "got $STATUS $ok $code, want ${want%% *} $want_ok $want_code (body: ${BODY:0:200})"
            [[ $rid =~ ^[0-9a-f]{32}$ ]] || smoke_fail "meta.request_id '$rid'"
        fi
        check "matrix:$method:$template:$caller"
    done
    echo "matrix row $method $template: $((SECONDS - row_started)) s"
done 3<"$TABLE"

echo "matrix: $cells cells in $((SECONDS - started)) s"
((cells >= 200)) || smoke_fail "only $cells cells ran"
check matrix_covers_the_table
smoke_done
