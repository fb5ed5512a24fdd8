#!/usr/bin/env bash
# 87-sharing.sh -- pouches shared between accounts (docs/SHARING.md §4-§9), through nginx with
# real statements and grants made by pouchctl: invite, accept, roles (write commits and
# uploads under the owner's plan, read is refused), membership changes only by an admin,
# removal with its rotation and grants, leave, the last admin, decline, withdraw, expiry and
# the pending-invitation limit. Every refusal asserts its status and code and, with SQL, that
# nothing was stored.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/flows.sh"

# --- set-up: users with a genesis whose member key we hold, and a published identity ----------

# sh_user NAME: a fresh web user with genesis and identity. Sets NAME_TOKEN NAME_ACCOUNT
# NAME_MEMBER NAME_DIR (member.pem, isign.pem, ienc.pem) NAME_POUCH NAME_EPOCH NAME_EMAIL.
sh_user() {
    local n=$1 dir member pouch st ident env
    flow_web_user "$n" || return 1
    dir="$SMOKE_TMP/$n"
    mkdir -p "$dir"
    "$POUCHCTL" keygen --out "$dir/member.pem" >/dev/null || return 1
    member=$(flow_uuid)
    pouch=$(flow_uuid)
    st=$("$POUCHCTL" genesis-statement --member "$member" --key "$dir/member.pem") || return 1
    req POST /v1/account/roster/genesis "$(jq -nc --arg p "$pouch" --arg m "$member" --argjson st "$st" \
        --arg s "$(flow_b64 32)" '{statements:[$st], key_envelopes:[{pouch_id:$p, member_id:$m,
         key_gen:1, hpke_enc:$s, ciphertext:$s, created_by_member:$m, signature:$s}]}')" \
        -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 201 ]] || { echo "sh_user $n: genesis answered $STATUS: $BODY" >&2; return 1; }
    ident=$("$POUCHCTL" identity-statement --account "$WEB_ACCOUNT" --genesis "$st" \
        --key "$dir/member.pem" --sign-out "$dir/isign.pem" --enc-out "$dir/ienc.pem") || return 1
    env=$("$POUCHCTL" identity-envelope --account "$WEB_ACCOUNT" --member "$member" \
        --to "$dir/member.pem" --sign-key "$dir/isign.pem" --enc-key "$dir/ienc.pem" \
        --creator "$member" --creator-key "$dir/member.pem") || return 1
    req PUT /v1/account/identity "$(jq -nc --argjson i "$ident" --argjson e "$env" \
        '{statement:$i.statement, signature:$i.signature, envelopes:[$e]}')" \
        -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 201 ]] || { echo "sh_user $n: identity answered $STATUS: $BODY" >&2; return 1; }
    printf -v "${n}_TOKEN" %s "$WEB_TOKEN"
    printf -v "${n}_ACCOUNT" %s "$WEB_ACCOUNT"
    printf -v "${n}_EMAIL" %s "$WEB_EMAIL"
    printf -v "${n}_MEMBER" %s "$member"
    printf -v "${n}_DIR" %s "$dir"
    printf -v "${n}_POUCH" %s "$pouch"
    printf -v "${n}_EPOCH" %s "$(sql "SELECT epoch FROM pouches WHERE id = '$pouch'")"
}

# as NAME METHOD PATH [BODY [curl args]]: a request as NAME's web session.
as() {
    local tok="${1}_TOKEN"
    req "$2" "$3" "${4-}" -H "Authorization: Bearer ${!tok}" "${@:5}"
}

# stmt POUCH SEQ PREV KIND BY SIGNER_NAME ABOUT ABOUT_NAME ROLE KEY_GEN: an access statement
# {statement, signature} of account BY (signed with SIGNER_NAME's identity key) about account
# ABOUT, naming ABOUT_NAME's identity ("-" for a made-up identity: a stand-in's).
stmt() {
    local pouch=$1 seq=$2 prev=$3 kind=$4 by=$5 signer=$6 about=$7 aname=$8 role=$9 gen=${10}
    local sdir="${signer}_DIR" adir sp ep
    if [[ $aname == - ]]; then
        adir="$SMOKE_TMP/standin.$about"
        mkdir -p "$adir"
        [[ -f $adir/isign.pem ]] || "$POUCHCTL" keygen --out "$adir/isign.pem" >/dev/null
        [[ -f $adir/ienc.pem ]] || "$POUCHCTL" keygen --out "$adir/ienc.pem" >/dev/null
    else
        adir="${aname}_DIR"
        adir=${!adir}
    fi
    local args=(--pouch "$pouch" --seq "$seq" --kind "$kind" --by "$by" --account "$about"
        --sign-pub "$adir/isign.pem" --enc-pub "$adir/ienc.pem" --role "$role" --key-gen "$gen"
        --key "${!sdir}/isign.pem")
    [[ -n $prev ]] && args+=(--prev-statement "$prev")
    "$POUCHCTL" access-statement "${args[@]}"
}

# grant POUCH ACCOUNT ACCOUNT_DIR KEY_GEN BY BY_NAME: a key grant to ACCOUNT.
grant() {
    local bdir="${6}_DIR"
    "$POUCHCTL" key-grant --pouch "$1" --account "$2" --key-gen "$4" --to "$3/ienc.pem" --by "$5" \
        --key "${!bdir}/isign.pem"
}

# envs POUCH MEMBER KEY_GEN...: key envelopes for MEMBER (the service cannot open them).
envs() {
    local p=$1 m=$2
    shift 2
    local gens
    gens=$(printf '%s\n' "$@" | jq -sc .)
    jq -nc --arg p "$p" --arg m "$m" --argjson g "$gens" --arg s "$(flow_b64 32)" \
        '[$g[] | {pouch_id:$p, member_id:$m, key_gen:., hpke_enc:$s, ciphertext:$s,
                  created_by_member:$m, signature:$s}]'
}

count() { sql "SELECT count(*) FROM $1"; }
# expect_sql QUERY WANT: the query's one value is WANT.
expect_sql() {
    local got
    got=$(sql "$1")
    [[ $got == "$2" ]] || smoke_fail "$1: got '$got', want '$2'"
}

sh_user A
sh_user B
sh_user C
P=$A_POUCH

# --- inviting ---------------------------------------------------------------------------------

S0=$(stmt "$P" 0 "" share "$A_ACCOUNT" A "$A_ACCOUNT" A admin 1)
S1=$(stmt "$P" 1 "$(jq -r .statement <<<"$S0")" share "$A_ACCOUNT" A "$B_ACCOUNT" B write 1)
G_B1=$(grant "$P" "$B_ACCOUNT" "$B_DIR" 1 "$A_ACCOUNT" A)
invite_body() {  # invite_body ID ACCOUNT EMAIL ROLE STATEMENTS_JSON GRANTS_JSON [extra]
    local extra=${7-}
    [[ -n $extra ]] || extra='{}'
    jq -nc --arg i "$1" --arg a "$2" --arg e "$3" --arg r "$4" --argjson s "$5" --argjson g "$6" \
        --argjson x "$extra" '{id:$i, account_id:$a, email:$e, role:$r, statements:$s, key_grants:$g} + $x'
}
INV_B=$(flow_uuid)

as B GET "/v1/pouches/$P"
expect_error 404 not_found
check not_invited_account_does_not_see_the_pouch

# The role of the share must be the invitation's; nothing is stored.
as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$B_ACCOUNT" "$B_EMAIL" read \
    "[$S0,$S1]" "[$G_B1]")"
expect_error 409 access_conflict
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 0
expect_sql "SELECT count(*) FROM invitations WHERE pouch_id = '$P'" 0
expect_sql "SELECT count(*) FROM key_grants WHERE pouch_id = '$P'" 0
check invitation_role_must_match_the_share_nothing_stored

# A share signed by another identity than its `by` (B's key for A's statement).
BAD0=$(stmt "$P" 0 "" share "$A_ACCOUNT" B "$A_ACCOUNT" A admin 1)
as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$B_ACCOUNT" "$B_EMAIL" write \
    "[$BAD0,$S1]" "[$G_B1]")"
expect_error 409 access_conflict
expect_json .error.field /statements/0/statement
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 0
check invitation_with_a_badly_signed_statement_is_refused

# An unshared pouch takes the owner's own statement 0 first.
as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$B_ACCOUNT" "$B_EMAIL" write \
    "[$S1]" "[$G_B1]")"
expect_error 409 access_conflict
expect_json .error.field /statements
check unshared_pouch_invitation_needs_statement_zero

as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$A_ACCOUNT" "$A_EMAIL" write \
    "[$S0,$S1]" "[$G_B1]")"
expect_error 409 already_shared
check inviting_ones_own_account_is_already_shared

# A grant that does not verify (signed by B, claiming A).
BADG=$(jq -c --arg s "$(jq -r .signature <<<"$(grant "$P" "$B_ACCOUNT" "$B_DIR" 1 "$A_ACCOUNT" B)")" \
    '.signature = $s' <<<"$G_B1")
as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$B_ACCOUNT" "$B_EMAIL" write \
    "[$S0,$S1]" "[$BADG]")"
expect_error 400 invalid_field
expect_json .error.field /key_grants/0/signature
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 0
expect_sql "SELECT count(*) FROM invitations WHERE pouch_id = '$P'" 0
check invitation_with_a_bad_grant_signature_is_refused

as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_B" "$B_ACCOUNT" "$B_EMAIL" write \
    "[$S0,$S1]" "[$G_B1]")"
expect_status 201
expect_json .data.state pending
expect_json .data.role write
expect_json .data.access_index 1
expect_json .data.inviter_account_id "$A_ACCOUNT"
expect_json_match .data.inviter_identity.genesis.statement '^[A-Za-z0-9_-]+$'
expect_sql "SELECT state || ' ' || role FROM pouch_access WHERE pouch_id = '$P' AND account_id = '$B_ACCOUNT'" "invited write"
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 2
expect_sql "SELECT count(*) FROM key_grants WHERE pouch_id = '$P' AND account_id = '$B_ACCOUNT'" 1
expect_sql "SELECT count(*) FROM audit_log WHERE action = 'sharing.invite' AND account_id = '$A_ACCOUNT'" 1
check invite_stores_statements_grant_and_invited_row

as A POST "/v1/pouches/$P/invitations" "$(invite_body "$(flow_uuid)" "$B_ACCOUNT" "$B_EMAIL" write \
    "[$S1]" "[$G_B1]")"
expect_error 409 already_shared
check inviting_an_invited_account_again_is_already_shared

# The invitee sees the invitation and the list, not the pouch, until it accepts.
as B GET "/v1/invitations"
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].id' "$INV_B"
as B GET "/v1/pouches/$P/access"
expect_status 200
expect_json '.data.items | length' 2
as B GET "/v1/pouches/$P"
expect_error 404 not_found
as C GET "/v1/pouches/$P/access"
expect_error 404 not_found
check invitee_reads_the_access_list_before_accepting

as C POST "/v1/invitations/$INV_B/accept" "{\"key_envelopes\":$(envs "$P" "$C_MEMBER" 1)}"
expect_error 404 not_found
check only_the_invitee_accepts

as B POST "/v1/invitations/$INV_B/accept" "{\"key_envelopes\":$(envs "$P" "$B_MEMBER" 1)}"
expect_status 200
expect_json .data.state accepted
expect_sql "SELECT state FROM pouch_access WHERE pouch_id = '$P' AND account_id = '$B_ACCOUNT'" active
expect_sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$P' AND member_id = '$B_MEMBER'" 1
check accept_activates_and_stores_the_members_envelopes

as B POST "/v1/invitations/$INV_B/accept" "{\"key_envelopes\":$(envs "$P" "$B_MEMBER" 1)}"
expect_error 410 invitation_unavailable
expect_json .error.details.state accepted
check accepting_twice_is_unavailable

as B GET /v1/pouches
expect_status 200
expect_json "[.data.items[] | select(.id == \"$P\")][0].role" write
expect_json "[.data.items[] | select(.id == \"$P\")][0].owner_account_id" "$A_ACCOUNT"
expect_json "[.data.items[] | select(.id == \"$P\")][0].shared" true
as A GET "/v1/pouches/$P"
expect_json .data.role admin
expect_json .data.shared true
check pouch_list_shows_role_owner_and_shared

as B GET "/v1/pouches/$P/key-grants"
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].key_gen' 1
as B GET "/v1/pouches/$P/members"
expect_status 200
expect_json '[.data.items[] | .state] | sort | join(",")' active,active
expect_json "[.data.items[] | select(.account_id == \"$A_ACCOUNT\") | .identity_statement.statement][0]" \
    "$(sql "SELECT statement FROM account_identities WHERE account_id = '$A_ACCOUNT'")"
# Paged like every list: one at a time (oldest share first; A's and B's came in one
# transaction, so by account id), then the cursor ends.
as B GET "/v1/pouches/$P/members?limit=1"
expect_status 200
expect_json '.data.items | length' 1
first=$(json '.data.items[0].account_id')
cursor=$(json .meta.next_cursor)
as B GET "/v1/pouches/$P/members?limit=1&cursor=$cursor"
expect_status 200
second=$(json '.data.items[0].account_id')
expect_json '.meta.next_cursor' null
expect_true "the two pages hold A and B once each ($first, $second)" \
    test "$(printf '%s\n' "$first" "$second" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$A_ACCOUNT" "$B_ACCOUNT" | sort | tr '\n' ' ')"
as B GET "/v1/pouches/$P/members?limit=1001"
expect_error 400 validation_failed
as B GET "/v1/pouches/$P/rosters/$A_ACCOUNT"
expect_status 200
expect_json '.data.items[0].index' 0
check member_reads_grants_members_and_the_owners_roster

# --- the write role commits and uploads; the owner pays -----------------------------------------

USED_A=$(sql "SELECT account_stored_bytes('$A_ACCOUNT')")
USED_B=$(sql "SELECT account_stored_bytes('$B_ACCOUNT')")
flow_commit "$B_TOKEN" "$P" "$A_EPOCH" "$(flow_op put "$(flow_uuid)" "$(flow_uuid)" null "$(flow_b64 300)" "$B_MEMBER")"
expect_status 200
BLOB_BYTES=$(head -c 5000 /dev/urandom | base64 -w0)
printf %s "$BLOB_BYTES" >"$SMOKE_TMP/blob"
BLOB_ID=$(b3sum --raw "$SMOKE_TMP/blob" | basenc --base64url | tr -d '=')
as B POST "/v1/pouches/$P/blobs/check" "{\"blobs\":[{\"id\":\"$BLOB_ID\",\"stored_size\":${#BLOB_BYTES}}]}"
expect_status 200
as B PUT "/v1/pouches/$P/blobs/$BLOB_ID" "@$SMOKE_TMP/blob" -H 'Content-Type: application/octet-stream'
expect_status 201
expect_sql "SELECT account_id FROM blobs WHERE id = '$BLOB_ID'" "$A_ACCOUNT"
expect_sql "SELECT account_stored_bytes('$A_ACCOUNT') > $USED_A + ${#BLOB_BYTES}" t
expect_sql "SELECT account_stored_bytes('$B_ACCOUNT')" "$USED_B"
check writer_commits_and_uploads_under_the_owners_plan

# --- the read role ---------------------------------------------------------------------------------

S2=$(stmt "$P" 2 "$(jq -r .statement <<<"$S1")" share "$A_ACCOUNT" A "$C_ACCOUNT" C read 1)
INV_C=$(flow_uuid)
as A POST "/v1/pouches/$P/invitations" "$(invite_body "$INV_C" "$C_ACCOUNT" "$C_EMAIL" read \
    "[$S2]" "[$(grant "$P" "$C_ACCOUNT" "$C_DIR" 1 "$A_ACCOUNT" A)]")"
expect_status 201
as C POST "/v1/invitations/$INV_C/accept" "{\"key_envelopes\":$(envs "$P" "$C_MEMBER" 1)}"
expect_status 200
check read_role_invited_and_accepted

REVS=$(count "revisions WHERE pouch_id = '$P'")
as C POST "/v1/pouches/$P/operations" "$(jq -nc --arg o "$(flow_uuid)" --arg e "$A_EPOCH" \
    --argjson op "$(flow_op put "$(flow_uuid)" "$(flow_uuid)" null "$(flow_b64 30)" "$C_MEMBER")" \
    '{operation_id:$o, epoch:$e, ops:[$op]}')"
expect_error 403 insufficient_role
expect_json .error.details.role read
expect_json .error.details.required write
expect_sql "SELECT count(*) FROM revisions WHERE pouch_id = '$P'" "$REVS"
as C POST "/v1/pouches/$P/blobs/check" "{\"blobs\":[{\"id\":\"$(flow_b64 32)\",\"stored_size\":10}]}"
expect_error 403 insufficient_role
as C POST "/v1/pouches/$P/shares" "$(jq -nc --arg i "$(flow_uuid)" '{id:$i, bundle:"YnVuZGxl", label_enc:"bGFiZWw"}')"
expect_error 403 insufficient_role
as C GET "/v1/pouches/$P/artifacts"
expect_status 200
check read_role_reads_but_cannot_write

# Membership changes need admin: B (write) may not lower C.
S3R=$(stmt "$P" 3 "$(jq -r .statement <<<"$S2")" role "$B_ACCOUNT" B "$C_ACCOUNT" C read 1)
as B POST "/v1/pouches/$P/access" "$S3R"
expect_error 403 insufficient_role
expect_json .error.details.required admin
as B GET "/v1/pouches/$P/invitations"
expect_error 403 insufficient_role
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 3
check membership_changes_need_admin

# --- removal with its rotation ----------------------------------------------------------------------

S3=$(stmt "$P" 3 "$(jq -r .statement <<<"$S2")" remove "$A_ACCOUNT" A "$C_ACCOUNT" C read 2)
as A POST "/v1/pouches/$P/access" "$(jq -c --argjson e "$(envs "$P" "$A_MEMBER" 2)" '. + {key_envelopes:$e}' <<<"$S3")"
expect_error 409 access_conflict
expect_json .error.field /key_grants
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 3
expect_sql "SELECT key_gen FROM pouches WHERE id = '$P'" 1
check removal_without_a_grant_for_every_other_account_is_refused

as A POST "/v1/pouches/$P/access" "$(jq -c --argjson e "$(envs "$P" "$A_MEMBER" 2)" \
    --argjson g "[$(grant "$P" "$B_ACCOUNT" "$B_DIR" 2 "$A_ACCOUNT" A)]" \
    '. + {key_envelopes:$e, key_grants:$g}' <<<"$S3")"
expect_status 201
expect_json .data.index 3
expect_json .data.key_gen 2
expect_sql "SELECT state FROM pouch_access WHERE pouch_id = '$P' AND account_id = '$C_ACCOUNT'" removed
check removal_rotates_and_grants

as C GET "/v1/pouches/$P"
expect_error 404 not_found
as C POST "/v1/pouches/$P/operations" "$(jq -nc --arg o "$(flow_uuid)" --arg e "$A_EPOCH" \
    --argjson op "$(flow_op put "$(flow_uuid)" "$(flow_uuid)" null "$(flow_b64 30)" "$C_MEMBER")" \
    '{operation_id:$o, epoch:$e, ops:[$op]}')"
expect_error 404 not_found
as C GET "/v1/pouches/$P/access"
expect_error 404 not_found
check removed_account_gets_404_and_its_commit_is_refused

# --- leave and the last admin -------------------------------------------------------------------------

S4=$(stmt "$P" 4 "$(jq -r .statement <<<"$S3")" leave "$B_ACCOUNT" B "$B_ACCOUNT" B write 3)
as B POST "/v1/pouches/$P/leave" "$S4"
expect_status 200
expect_json .data.index 4
expect_json .data.rotation_pending true
as B GET "/v1/pouches/$P"
expect_error 404 not_found
check leave_removes_access_and_leaves_the_rotation_pending

S5=$(stmt "$P" 5 "$(jq -r .statement <<<"$S4")" leave "$A_ACCOUNT" A "$A_ACCOUNT" A admin 3)
as A POST "/v1/pouches/$P/leave" "$S5"
expect_error 409 last_admin
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$P'" 5
check the_last_admin_cannot_leave

# The leave's rotation, made by the admin with POST key-envelopes (nobody else is left to grant).
as A POST "/v1/pouches/$P/key-envelopes" "{\"key_envelopes\":$(envs "$P" "$A_MEMBER" 3)}"
expect_status 200
expect_json .data.key_gen 3
expect_json .data.rotation_pending false
check admin_makes_the_rotation_a_leave_owes

expect_sql "SELECT string_agg(action, ',' ORDER BY id) FROM audit_log WHERE account_id = '$A_ACCOUNT' AND action LIKE 'sharing.%'" \
    "sharing.invite,sharing.accept,sharing.invite,sharing.accept,sharing.remove,sharing.leave"
check every_sharing_change_is_audited_under_the_owner

# --- decline, withdraw, stand-ins, expiry ----------------------------------------------------------------

sh_user D
sh_user E
Q=$D_POUCH
T0=$(stmt "$Q" 0 "" share "$D_ACCOUNT" D "$D_ACCOUNT" D admin 1)
T1=$(stmt "$Q" 1 "$(jq -r .statement <<<"$T0")" share "$D_ACCOUNT" D "$E_ACCOUNT" E read 1)
INV_E=$(flow_uuid)
as D POST "/v1/pouches/$Q/invitations" "$(invite_body "$INV_E" "$E_ACCOUNT" "$E_EMAIL" read \
    "[$T0,$T1]" "[$(grant "$Q" "$E_ACCOUNT" "$E_DIR" 1 "$D_ACCOUNT" D)]")"
expect_status 201
T2=$(stmt "$Q" 2 "$(jq -r .statement <<<"$T1")" leave "$E_ACCOUNT" E "$E_ACCOUNT" E read 2)
as E POST "/v1/invitations/$INV_E/decline" "$T2"
expect_status 200
expect_json .data.state declined
expect_sql "SELECT state FROM pouch_access WHERE pouch_id = '$Q' AND account_id = '$E_ACCOUNT'" declined
as E POST "/v1/invitations/$INV_E/accept" "{\"key_envelopes\":$(envs "$Q" "$E_MEMBER" 1)}"
expect_error 410 invitation_unavailable
expect_json .error.details.state declined
check decline_appends_a_leave

sh_user F
R=$F_POUCH
U0=$(stmt "$R" 0 "" share "$F_ACCOUNT" F "$F_ACCOUNT" F admin 1)
STANDIN=$(flow_uuid)  # no account has it: a stand-in of an unknown address
U1=$(stmt "$R" 1 "$(jq -r .statement <<<"$U0")" share "$F_ACCOUNT" F "$STANDIN" - write 1)
INV_S=$(flow_uuid)
as F POST "/v1/pouches/$R/invitations" "$(invite_body "$INV_S" "$STANDIN" "nobody.$STANDIN@example.com" write \
    "[$U0,$U1]" "[$(grant "$R" "$STANDIN" "$SMOKE_TMP/standin.$STANDIN" 1 "$F_ACCOUNT" F)]")"
expect_status 201
expect_json .data.invitee_account_id "$STANDIN"
check invitation_to_a_stand_in_is_accepted_like_any

U2=$(stmt "$R" 2 "$(jq -r .statement <<<"$U1")" remove "$F_ACCOUNT" F "$STANDIN" - write 2)
as E POST "/v1/invitations/$INV_S/withdraw" "$(jq -c --argjson e "$(envs "$R" "$E_MEMBER" 2)" '. + {key_envelopes:$e}' <<<"$U2")"
expect_error 404 not_found
as F POST "/v1/invitations/$INV_S/withdraw" "$(jq -c --argjson e "$(envs "$R" "$F_MEMBER" 2)" '. + {key_envelopes:$e}' <<<"$U2")"
expect_status 200
expect_json .data.state withdrawn
expect_sql "SELECT state FROM pouch_access WHERE pouch_id = '$R' AND account_id = '$STANDIN'" withdrawn
expect_sql "SELECT key_gen FROM pouches WHERE id = '$R'" 2
check withdraw_removes_with_a_rotation

# Roles change by an admin: a raise without a rotation, a lowering with one.
U3=$(stmt "$R" 3 "$(jq -r .statement <<<"$U2")" share "$F_ACCOUNT" F "$E_ACCOUNT" E read 2)
INV_R=$(flow_uuid)
as F POST "/v1/pouches/$R/invitations" "$(invite_body "$INV_R" "$E_ACCOUNT" "$E_EMAIL" read "[$U3]" \
    "[$(grant "$R" "$E_ACCOUNT" "$E_DIR" 1 "$F_ACCOUNT" F),$(grant "$R" "$E_ACCOUNT" "$E_DIR" 2 "$F_ACCOUNT" F)]")"
expect_status 201
as E POST "/v1/invitations/$INV_R/accept" "{\"key_envelopes\":$(envs "$R" "$E_MEMBER" 1 2)}"
expect_status 200
expect_sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$R' AND member_id = '$E_MEMBER'" 2
check invitation_grants_every_generation_and_accept_fills_them_in

U4=$(stmt "$R" 4 "$(jq -r .statement <<<"$U3")" role "$F_ACCOUNT" F "$E_ACCOUNT" E write 2)
as F POST "/v1/pouches/$R/access" "$(jq -c --argjson e "$(envs "$R" "$F_MEMBER" 3)" '. + {key_envelopes:$e}' <<<"$U4")"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes
as F POST "/v1/pouches/$R/access" "$U4"
expect_status 201
expect_json .data.index 4
expect_json .data.key_gen 2
expect_sql "SELECT role FROM pouch_access WHERE pouch_id = '$R' AND account_id = '$E_ACCOUNT'" write
check raising_a_role_needs_no_rotation

U5=$(stmt "$R" 5 "$(jq -r .statement <<<"$U4")" role "$F_ACCOUNT" F "$E_ACCOUNT" E read 3)
as F POST "/v1/pouches/$R/access" "$U5"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes
expect_sql "SELECT role FROM pouch_access WHERE pouch_id = '$R' AND account_id = '$E_ACCOUNT'" write
as F POST "/v1/pouches/$R/access" "$(jq -c --argjson e "$(envs "$R" "$F_MEMBER" 3)" \
    --argjson g "[$(grant "$R" "$E_ACCOUNT" "$E_DIR" 3 "$F_ACCOUNT" F)]" '. + {key_envelopes:$e, key_grants:$g}' <<<"$U5")"
expect_status 201
expect_json .data.key_gen 3
expect_sql "SELECT role FROM pouch_access WHERE pouch_id = '$R' AND account_id = '$E_ACCOUNT'" read
check lowering_a_role_rotates_with_grants

U6=$(stmt "$R" 6 "$(jq -r .statement <<<"$U5")" role "$F_ACCOUNT" F "$F_ACCOUNT" F write 4)
as F POST "/v1/pouches/$R/access" "$U6"
expect_error 409 last_admin
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$R'" 6
check the_last_admin_cannot_be_lowered

# Expiry: an invitation past its time is expired on the next read and cannot be accepted.
sh_user G
V=$G_POUCH
W0=$(stmt "$V" 0 "" share "$G_ACCOUNT" G "$G_ACCOUNT" G admin 1)
W1=$(stmt "$V" 1 "$(jq -r .statement <<<"$W0")" share "$G_ACCOUNT" G "$E_ACCOUNT" E write 1)
INV_X=$(flow_uuid)
as G POST "/v1/pouches/$V/invitations" "$(invite_body "$INV_X" "$E_ACCOUNT" "$E_EMAIL" write \
    "[$W0,$W1]" "[$(grant "$V" "$E_ACCOUNT" "$E_DIR" 1 "$G_ACCOUNT" G)]" '{"expires_in":3600}')"
expect_status 201
sql "UPDATE invitations SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' WHERE id = '$INV_X'" >/dev/null
as E GET "/v1/invitations?state=expired"
expect_status 200
expect_json '.data.items | length' 1
as E POST "/v1/invitations/$INV_X/accept" "{\"key_envelopes\":$(envs "$V" "$E_MEMBER" 1)}"
expect_error 410 invitation_unavailable
expect_json .error.details.state expired
expect_sql "SELECT state FROM pouch_access WHERE pouch_id = '$V' AND account_id = '$E_ACCOUNT'" expired
expect_sql "SELECT count(*) FROM audit_log WHERE action = 'sharing.expire' AND account_id = '$G_ACCOUNT'" 1
as G GET "/v1/pouches/$V/members"
expect_json "[.data.items[] | select(.account_id == \"$E_ACCOUNT\")][0].state" expired
check expired_invitation_is_listed_and_refused

# Bad bounds of expires_in: 400 and nothing stored.
as G POST "/v1/pouches/$V/invitations" "$(invite_body "$(flow_uuid)" "$STANDIN" "x@example.com" read \
    "[$W1]" "[$G_B1]" '{"expires_in":3599}')"
expect_error 400 validation_failed
expect_json .error.field /expires_in
check expires_in_below_an_hour_is_refused

# --- at most 100 pending invitations per inviting account -------------------------------------------
# 98 pending invitations of G are made in SQL (to made-up stand-in ids: only their count
# matters here); the 99th and 100th through the API are accepted, the 101st is refused and
# stores nothing (G's expired invitation above is not pending).
sql "INSERT INTO invitations (id, pouch_id, inviter_account_id, invitee_account_id, email, role, expires_at, access_index)
     SELECT gen_random_uuid(), '$V', '$G_ACCOUNT', gen_random_uuid(), 'x@example.com', 'read', now() + interval '1 day', 1
       FROM generate_series(1, 98)" >/dev/null
expect_sql "SELECT count(*) FROM invitations WHERE inviter_account_id = '$G_ACCOUNT' AND state = 'pending'" 98
PREV=$(jq -r .statement <<<"$W1")
SEQ=2
for n in 99 100 101; do
    X=$(flow_uuid)
    XS=$(stmt "$V" "$SEQ" "$PREV" share "$G_ACCOUNT" G "$X" - read 1)
    as G POST "/v1/pouches/$V/invitations" "$(invite_body "$(flow_uuid)" "$X" "n$n@example.com" read \
        "[$XS]" "[$(grant "$V" "$X" "$SMOKE_TMP/standin.$X" 1 "$G_ACCOUNT" G)]")"
    if ((n <= 100)); then
        expect_status 201
        PREV=$(jq -r .statement <<<"$XS")
        SEQ=$((SEQ + 1))
    else
        expect_error 403 invitation_limit_reached
    fi
done
expect_sql "SELECT count(*) FROM invitations WHERE inviter_account_id = '$G_ACCOUNT' AND state = 'pending'" 100
expect_sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$V'" 4
check invitation_limit_at_100_and_101

# Two invitations at the same moment on two pouches, with 99 pending: exactly one is stored (the
# count is taken under a lock of the inviting account, not read by both at 99).
sql "UPDATE invitations SET state = 'withdrawn' WHERE id = (SELECT id FROM invitations
     WHERE inviter_account_id = '$G_ACCOUNT' AND state = 'pending' AND email = 'x@example.com' LIMIT 1)" >/dev/null
V2=$(flow_new_pouch "$G_TOKEN" "$G_MEMBER" | cut -d' ' -f1)
V3=$(flow_new_pouch "$G_TOKEN" "$G_MEMBER" | cut -d' ' -f1)
race_body() {  # race_body POUCH: the pouch's first share, to a new stand-in
    local x s0 s1
    x=$(flow_uuid)
    s0=$(stmt "$1" 0 "" share "$G_ACCOUNT" G "$G_ACCOUNT" G admin 1)
    s1=$(stmt "$1" 1 "$(jq -r .statement <<<"$s0")" share "$G_ACCOUNT" G "$x" - read 1)
    invite_body "$(flow_uuid)" "$x" "race@example.com" read "[$s0,$s1]" \
        "[$(grant "$1" "$x" "$SMOKE_TMP/standin.$x" 1 "$G_ACCOUNT" G)]"
}
RB1=$(race_body "$V2")
RB2=$(race_body "$V3")
for i in 1 2; do
    body_var="RB$i"
    pouch_of=$([[ $i == 1 ]] && echo "$V2" || echo "$V3")
    curl -sS -o /dev/null -w '%{http_code}\n' -X POST "$POUCH_URL/v1/pouches/$pouch_of/invitations" \
        -H "Authorization: Bearer $G_TOKEN" -H 'Content-Type: application/json' \
        --data-binary "${!body_var}" >"$SMOKE_TMP/race.$i" &
done
wait
race=$(sort "$SMOKE_TMP/race.1" "$SMOKE_TMP/race.2" | tr '\n' ' ')
expect_true "of two invitations at once with 99 pending, one is stored and one refused ($race)" test "$race" = "201 403 "
expect_sql "SELECT count(*) FROM invitations WHERE inviter_account_id = '$G_ACCOUNT' AND state = 'pending'" 100
check the_invitation_limit_holds_when_two_invitations_race

# A rotation of a shared pouch carries a grant for every other account in its list (here the
# expired invitee and the two pending stand-ins): 409 and nothing stored without them.
as G POST "/v1/pouches/$V/key-envelopes" "{\"key_envelopes\":$(envs "$V" "$G_MEMBER" 2)}"
expect_error 409 access_conflict
expect_json .error.field /key_grants
expect_sql "SELECT key_gen FROM pouches WHERE id = '$V'" 1
expect_sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$V' AND key_gen = 2" 0
check shared_rotation_without_grants_is_refused

smoke_done
