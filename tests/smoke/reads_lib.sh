# reads_lib.sh -- setup shared by the read-path smoke tests (40-44: events, artifacts,
# revisions): a web user with genesis (one pouch, the user's member) and revisions written
# through the commit endpoint (op 1) as a web caller. Sourced after tests/smoke/lib.sh.
# shellcheck shell=bash

sql() { psql "$POUCH_DATABASE_URL" -XtAq -c "$1"; }
new_uuid() { cat /proc/sys/kernel/random/uuid; }
b64url_random() { head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

# new_user: signs up a fresh user and runs genesis. Sets U_TOKEN, U_ACCOUNT, U_MEMBER,
# U_POUCH and U_EPOCH (copy them before the next call).
new_user() {
    local email="reads.$(date +%s%N).$RANDOM@example.com"
    req POST /v1/account/signup "$(jq -nc --arg e "$email" '{email:$e,password:"correct horse battery"}')"
    [[ $STATUS == 201 ]] || { echo "setup: signup answered $STATUS: $BODY" >&2; return 1; }
    U_TOKEN=$(json .data.session_token)
    U_ACCOUNT=$(json .data.storage_account_id)
    U_MEMBER=$(new_uuid)
    U_POUCH=$(new_uuid)
    local body
    body=$(jq -nc --arg p "$U_POUCH" --arg m "$U_MEMBER" --arg s "$(b64url_random 64)" \
        --arg sig "$(b64url_random 64)" --arg enc "$(b64url_random 32)" --arg ct "$(b64url_random 48)" \
        '{statements:[{statement:$s,signature:$sig}],
          key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$enc,ciphertext:$ct,
                          created_by_member:$m,signature:$sig}]}')
    req POST /v1/account/roster/genesis "$body" -H "Authorization: Bearer $U_TOKEN"
    [[ $STATUS == 201 ]] || { echo "setup: genesis answered $STATUS: $BODY" >&2; return 1; }
    U_EPOCH=$(sql "SELECT epoch FROM pouches WHERE id = '$U_POUCH'")
}

# op TYPE ARTIFACT REVISION BASE|null ENVELOPE MEMBER: one commit operation (JSON).
op() {
    jq -nc --arg t "$1" --arg a "$2" --arg r "$3" --arg b "$4" --arg e "$5" --arg m "$6" \
        --arg sig "$(b64url_random 64)" \
        '{type:$t, artifact_id:$a, revision_id:$r,
          base_revision_id:(if $b == "null" then null else $b end), key_gen:1, envelope:$e,
          signature:$sig, signer_member_id:$m, blob_ids:[]}'
}

# commit TOKEN POUCH EPOCH OPS...: POST .../operations with those ops (JSON objects) as a web
# caller; the body goes through a file, so megabyte envelopes fit. Leaves the answer in
# STATUS/BODY and fails unless every op was applied.
commit() {
    local token=$1 pouch=$2 epoch=$3
    shift 3
    printf '%s\n' "$@" | jq -sc --arg o "$(new_uuid)" --arg e "$epoch" \
        '{operation_id:$o, epoch:$e, ops:.}' >"$SMOKE_TMP/commit.json"
    req POST "/v1/pouches/$pouch/operations" "@$SMOKE_TMP/commit.json" \
        -H "Authorization: Bearer $token"
    if [[ $STATUS == 404 && $(json .error.message) == pending ]]; then commit_sql "$pouch"; fi
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

# TEMPORARY until op 1 lands on this branch: what a commit stores, written with SQL.
commit_sql() {
    local pouch=$1
    {
        echo 'DO $do$ DECLARE o jsonb; hw bigint; ep uuid; BEGIN'
        printf 'FOR o IN SELECT value FROM jsonb_array_elements($j$%s$j$::jsonb->%s) LOOP\n' \
            "$(cat "$SMOKE_TMP/commit.json")" "'ops'"
        cat <<SQL
  UPDATE pouches SET high_water = high_water + 1 WHERE id = '$pouch' RETURNING high_water, epoch INTO hw, ep;
  INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, base_revision_id, key_gen, envelope,
                         envelope_hash, signature, signer_member_id, stored_size, origin)
  VALUES ('$pouch', (o->>'revision_id')::uuid, (o->>'artifact_id')::uuid, hw, o->>'type',
          (o->>'base_revision_id')::uuid, 1, o->>'envelope', 'hash', o->>'signature',
          (o->>'signer_member_id')::uuid, octet_length(o->>'envelope') + octet_length(o->>'signature'), 'web');
  INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, deleted)
  VALUES ('$pouch', (o->>'artifact_id')::uuid, (o->>'revision_id')::uuid, hw, o->>'type' = 'delete')
  ON CONFLICT (pouch_id, id) DO UPDATE SET head_revision_id = excluded.head_revision_id,
      head_seq = excluded.head_seq, deleted = excluded.deleted, updated_at = now();
  INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id)
  VALUES ('$pouch', ep, hw, 'revision', (o->>'artifact_id')::uuid, (o->>'revision_id')::uuid);
END LOOP; END \$do\$;
SQL
    } >"$SMOKE_TMP/commit.sql"
    psql "$POUCH_DATABASE_URL" -XtAq -v ON_ERROR_STOP=1 -f "$SMOKE_TMP/commit.sql" >/dev/null || return 1
    local port=${POUCH_REDIS_URL##*:}
    port=${port%%/*}
    redis-cli -p "$port" PUBLISH "pouch:events:$pouch" commit >/dev/null 2>&1 || true
    STATUS=200
    BODY='{"ok":true,"data":{"results":[]}}'
}
