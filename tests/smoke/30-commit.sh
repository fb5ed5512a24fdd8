#!/usr/bin/env bash
# 30-commit.sh -- the commit endpoint (op 1, decisions §5.3) through nginx: every row of the
# result table from a real request with the stored rows checked, batches mixing outcomes and
# building on themselves, idempotency, epochs, CLI Service-Signatures (good, missing,
# tampered, DER, other key, other body, signed by Node's jose), request bounds at their
# edges, cross-account access, and concurrency (16 writers on one base; 1,000 commits with
# gap-free seqs). Relies on tests/smoke/lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

b64url_blake3() { printf '%s' "$1" | b3sum --no-names --raw | base64 -w0 | tr '+/' '-_' | tr -d '='; }

flow_user
web=(-H "Authorization: Bearer $WEB_TOKEN")

# op TYPE ARTIFACT REVISION BASE [ENVELOPE] [extra jq object merged in]
op() {
    jq -nc --arg t "$1" --arg a "$2" --arg r "$3" --arg b "${4:-}" --arg e "${5:-envelope-$3}" \
        --arg m "$WEB_MEMBER" --argjson x "${6:-{\}}" \
        '{type:$t,artifact_id:$a,revision_id:$r,base_revision_id:(if $b == "" then null else $b end),
          key_gen:1,envelope:$e,signature:"sig",signer_member_id:$m,blob_ids:[]} + $x'
}
# commit_body OPERATION_ID OPS_JSON_ARRAY [EPOCH]
commit_body() {
    jq -nc --arg o "$1" --arg e "${3:-$EPOCH}" --argjson ops "$2" '{operation_id:$o,epoch:$e,ops:$ops}'
}
commit() { req POST "/v1/pouches/$POUCH/operations" "$1" "${web[@]}"; }

# --- applied -------------------------------------------------------------------------------
A=$(flow_uuid) R1=$(flow_uuid)
commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$R1" "" "hello-envelope")]")"
expect_status 200
expect_json '.data.results[0].status' applied
expect_json '.data.results[0].artifact_id' "$A"
expect_json '.data.results[0].revision_id' "$R1"
expect_json '.data.results[0].seq' 1
expect_json '.data.high_water' 1
row=$(sql "SELECT seq, kind, origin, envelope_hash, stored_size, device_id IS NULL FROM revisions WHERE pouch_id = '$POUCH' AND id = '$R1'")
expect_true "revision row $row" test "$row" = "1|put|web|$(b64url_blake3 hello-envelope)|17|t"
expect_true "artifact head" test "$(sql "SELECT head_revision_id, head_seq, name_index, deleted FROM artifacts WHERE pouch_id = '$POUCH' AND id = '$A'")" = "$R1|1||f"
expect_true "event" test "$(sql "SELECT seq, kind, artifact_id, revision_id FROM events WHERE pouch_id = '$POUCH'")" = "1|revision|$A|$R1"
expect_true "pouch high_water" test "$(sql "SELECT high_water, stored_bytes FROM pouches WHERE id = '$POUCH'")" = "1|17"
check commit_put_creates_artifact_revision_and_event

commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$R1" "" "hello-envelope")]")"
expect_status 200
expect_json '.data.results[0].status' applied
expect_json '.data.results[0].seq' 1
expect_json '.data.high_water' 1
expect_true "no second revision" test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH'")" = 1
check retry_of_an_identical_revision_answers_its_original_seq

# --- idempotency ---------------------------------------------------------------------------
OPID=$(flow_uuid) R2=$(flow_uuid)
body=$(commit_body "$OPID" "[$(op put "$A" "$R2" "$R1")]")
commit "$body"
expect_json '.data.results[0].seq' 2
first=$BODY
commit "$body"
expect_status 200
expect_true "replay returns the stored response" test "$(jq -c .data <<<"$BODY")" = "$(jq -c .data <<<"$first")"
expect_true "nothing new stored" test "$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")" = 2
check replay_of_an_operation_id_returns_the_stored_response

commit "$(commit_body "$OPID" "[$(op put "$A" "$(flow_uuid)" "$R2")]")"
expect_error 409 operation_id_reused
check operation_id_with_another_body_is_409

# --- conflicts and rejections, one per row of the table --------------------------------------
commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$(flow_uuid)" "$R1")]")"
expect_json '.data.results[0].status' conflict
expect_json '.data.results[0].code' stale_base
expect_json '.data.results[0].head_revision_id' "$R2"
expect_json '.data.high_water' 2
check stale_base_is_a_conflict_with_the_head

commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$(flow_uuid)" "")]")"
expect_json '.data.results[0].status' conflict
expect_json '.data.results[0].code' artifact_exists
check put_with_null_base_on_an_existing_artifact_is_artifact_exists

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "$(flow_uuid)")]")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' not_found
check base_on_an_unknown_artifact_is_not_found

commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$(flow_uuid)" "$R2" "" "{\"merge_parent_id\":\"$(flow_uuid)\"}")]")"
expect_json '.data.results[0].code' not_found
check unknown_merge_parent_is_not_found

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$R1" "" "another envelope")]")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' revision_exists
check reused_revision_id_with_other_content_is_revision_exists

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" '{"key_gen":2}')]")"
expect_json '.data.results[0].code' stale_key_gen
check wrong_key_gen_is_stale_key_gen

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"signer_member_id\":\"$(flow_uuid)\"}")]")"
expect_json '.data.results[0].code' unknown_member
check unknown_signer_is_unknown_member

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"blob_ids\":[\"$(flow_b64 32)\"]}")]")"
expect_json '.data.results[0].code' missing_blob
check reference_to_a_blob_not_uploaded_is_missing_blob

commit "$(commit_body "$(flow_uuid)" "[$(op move "$(flow_uuid)" "$(flow_uuid)" "")]")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' invalid_type
check unknown_type_is_invalid_type

expect_true "rejections stored nothing" test "$(sql "SELECT high_water, (SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH') FROM pouches WHERE id = '$POUCH'")" = "2|2"
check rejected_and_conflicting_ops_store_nothing

# --- delete and restore ----------------------------------------------------------------------
R3=$(flow_uuid) R4=$(flow_uuid)
commit "$(commit_body "$(flow_uuid)" "[$(op delete "$A" "$R3" "$R2")]")"
expect_json '.data.results[0].status' applied
expect_true "tombstone" test "$(sql "SELECT deleted, head_revision_id FROM artifacts WHERE pouch_id = '$POUCH' AND id = '$A'")" = "t|$R3"
commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$R4" "$R3")]")"
expect_json '.data.results[0].status' applied
expect_true "restored" test "$(sql "SELECT deleted, head_revision_id FROM artifacts WHERE pouch_id = '$POUCH' AND id = '$A'")" = "f|$R4"
check delete_writes_a_tombstone_and_a_put_on_it_restores

commit "$(commit_body "$(flow_uuid)" "[$(op delete "$(flow_uuid)" "$(flow_uuid)" "")]")"
expect_json '.data.results[0].code' not_found
check delete_of_an_unknown_artifact_is_not_found

# --- a batch that mixes outcomes and builds on itself ---------------------------------------
B=$(flow_uuid) B1=$(flow_uuid) B2=$(flow_uuid) C1=$(flow_uuid)
hw=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")
ops="[$(op put "$B" "$B1" ""),$(op put "$A" "$(flow_uuid)" "$R1"),$(op put "$B" "$B2" "$B1" "" '{"name_index":"bmFtZQ"}'),$(op move "$B" "$(flow_uuid)" ""),$(op put "$(flow_uuid)" "$C1" "")]"
commit "$(commit_body "$(flow_uuid)" "$ops")"
expect_status 200
expect_true "statuses $(json '[.data.results[].status] | join(",")')" \
    test "$(json '[.data.results[].status] | join(",")')" = "applied,conflict,applied,rejected,applied"
expect_true "seqs $(json '[.data.results[] | .seq // 0] | join(",")')" \
    test "$(json '[.data.results[] | .seq // 0] | join(",")')" = "$((hw + 1)),0,$((hw + 2)),0,$((hw + 3))"
expect_json '.data.high_water' $((hw + 3))
expect_true "B's head is B2 with its name_index" \
    test "$(sql "SELECT head_revision_id, name_index FROM artifacts WHERE pouch_id = '$POUCH' AND id = '$B'")" = "$B2|bmFtZQ"
expect_true "events gap-free" test "$(sql "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM events WHERE pouch_id = '$POUCH' AND seq > $hw")" = "$((hw + 1)),$((hw + 2)),$((hw + 3))"
check batch_mixes_outcomes_and_later_ops_build_on_earlier_ones

# A merge parent must be a revision of the same artifact: B1 is B's, R1 is A's.
commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$(flow_uuid)" "$R4" "" "{\"merge_parent_id\":\"$B1\"}")]")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' not_found
R5=$(flow_uuid)
commit "$(commit_body "$(flow_uuid)" "[$(op put "$A" "$R5" "$R4" "" "{\"merge_parent_id\":\"$R1\"}")]")"
expect_json '.data.results[0].status' applied
expect_json '.data.results[0].seq' $((hw + 4))
expect_true "merge parent stored" test "$(sql "SELECT merge_parent_id FROM revisions WHERE pouch_id = '$POUCH' AND id = '$R5'")" = "$R1"
hw=$((hw + 1))
check merge_parent_of_another_artifact_is_not_found_and_of_its_own_is_applied

# --- epoch -----------------------------------------------------------------------------------
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "")]" "$(flow_uuid)")"
expect_error 409 epoch_mismatch
expect_json .error.details.current_epoch "$EPOCH"
expect_json .error.details.high_water $((hw + 3))
check wrong_epoch_is_409_with_the_current_one

# --- request bounds --------------------------------------------------------------------------
many() { local n=$1 out="" i; for ((i = 0; i < n; i++)); do out+="${out:+,}$(op put "$(flow_uuid)" "$(flow_uuid)" "")"; done; echo "[$out]"; }
commit "$(commit_body "$(flow_uuid)" "$(many 50)")"
expect_status 200
expect_json '.data.results | length' 50
check fifty_ops_are_accepted
commit "$(commit_body "$(flow_uuid)" "$(many 51)")"
expect_error 400 validation_failed
expect_json .error.field /ops
check fifty_one_ops_are_rejected
commit "$(commit_body "$(flow_uuid)" "[]")"
expect_error 400 validation_failed
expect_json .error.field /ops
check zero_ops_are_rejected

bad=$(jq -c '.[3].artifact_id = "nope"' <<<"$(many 4)")
commit "$(commit_body "$(flow_uuid)" "$bad")"
expect_error 400 validation_failed
expect_json .error.field /ops/3/artifact_id
check bad_field_deep_in_a_batch_names_its_pointer

big_file() { # big_file ENVELOPE_LENGTH -> path of a one-op commit body
    local f=$SMOKE_TMP/big-$1.json
    head -c "$1" /dev/zero | tr '\0' 'e' | jq -Rsc --arg o "$(flow_uuid)" --arg e "$EPOCH" --arg a "$(flow_uuid)" \
        --arg r "$(flow_uuid)" --arg m "$WEB_MEMBER" \
        '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,key_gen:1,envelope:.,
          signature:"s",signer_member_id:$m,blob_ids:[]}]}' >"$f"
    echo "$f"
}
commit "@$(big_file 1048576)"
expect_status 200
expect_json '.data.results[0].status' applied
check envelope_of_1048576_characters_is_accepted
commit "@$(big_file 1048577)"
expect_error 400 validation_failed
expect_json .error.field /ops/0/envelope
check envelope_of_1048577_characters_is_rejected

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"signature\":\"$(printf 's%.0s' {1..342})\"}")]")"
expect_status 200
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"signature\":\"$(printf 's%.0s' {1..343})\"}")]")"
expect_error 400 validation_failed
expect_json .error.field /ops/0/signature
check op_signature_bound_is_342

commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"name_index\":\"$(printf 'n%.0s' {1..512})\"}")]")"
expect_status 200
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"name_index\":\"$(printf 'n%.0s' {1..513})\"}")]")"
expect_error 400 validation_failed
expect_json .error.field /ops/0/name_index
check name_index_bound_is_512

ids() { local n=$1 out="" i; for ((i = 0; i < n; i++)); do out+="${out:+,}\"$(printf '%043d' "$i")\""; done; echo "[$out]"; }
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"blob_ids\":$(ids 1000)}")]")"
expect_status 200
expect_json '.data.results[0].code' missing_blob
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"blob_ids\":$(ids 1001)}")]")"
expect_error 400 validation_failed
expect_json .error.field /ops/0/blob_ids
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"blob_ids\":[\"$(printf '%043d' 1)\",\"$(printf '%043d' 1)\"]}")]")"
expect_error 400 validation_failed
expect_json .error.field /ops/0/blob_ids/1
check blob_ids_are_at_most_1000_and_distinct

commit '{"operation_id":"'"$(flow_uuid)"'","epoch":"'"$EPOCH"'","ops":[],"ops":[]}'
expect_error 400 invalid_json
check duplicate_key_in_a_commit_is_invalid_json

commit "$(jq -c '.ops[0].key_gen = 1.5' <<<"$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "")]")")"
expect_error 400 validation_failed
check non_integer_number_is_rejected

# --- quota at the exact byte ------------------------------------------------------------------
used=$(sql "SELECT account_stored_bytes('$WEB_ACCOUNT')")
plan=$(flow_uuid)
sql "INSERT INTO plans (id, slug, name, pouch_limit, storage_bytes) VALUES ('$plan', 'q-${plan:0:8}', 'Quota test', 5, $((used + 20)))" >/dev/null
sql "UPDATE storage_accounts SET plan_id = '$plan' WHERE id = '$WEB_ACCOUNT'" >/dev/null
# stored_size = envelope bytes + signature bytes ("sig" = 3): 17 + 3 = 20 fills it exactly.
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "$(printf 'q%.0s' {1..17})")]")"
expect_json '.data.results[0].status' applied
commit "$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "" "q")]")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' quota_exceeded
expect_true "usage at the limit" test "$(sql "SELECT stored_bytes FROM pouches WHERE id = '$POUCH'")" -gt 0
sql "UPDATE storage_accounts SET plan_id = (SELECT id FROM plans WHERE is_default) WHERE id = '$WEB_ACCOUNT'" >/dev/null
check quota_is_exceeded_at_the_exact_byte

# --- cross-account ----------------------------------------------------------------------------
mine=$POUCH my_epoch=$EPOCH my_token=$WEB_TOKEN
flow_web_user
req POST "/v1/pouches/$mine/operations" "$(EPOCH=$my_epoch commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "")]")" \
    -H "Authorization: Bearer $WEB_TOKEN"
expect_error 404 not_found
check commit_to_another_accounts_pouch_is_404
req POST "/v1/pouches/$(flow_uuid)/operations" "{}" -H "Authorization: Bearer $WEB_TOKEN"
expect_error 404 not_found
check commit_to_an_unknown_pouch_is_404
WEB_TOKEN=$my_token
web=(-H "Authorization: Bearer $WEB_TOKEN")

# --- CLI commits and Service-Signature --------------------------------------------------------
flow_device laptop
cli_commit() { # cli_commit BODY SIGNATURE_HEADER_VALUE (empty: no header)
    local extra=()
    [[ -n $2 ]] && extra=(-H "Service-Signature: $2")
    cli_req POST "/v1/pouches/$POUCH/operations" "$1" "${extra[@]}"
}
cli_op() { op put "$(flow_uuid)" "$(flow_uuid)" "" "" "{\"signer_member_id\":\"$DEVICE_MEMBER\"}"; }

body=$(commit_body "$(flow_uuid)" "[$(cli_op)]")
cli_commit "$body" "$("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")"
expect_status 200
expect_json '.data.results[0].status' applied
rev=$(json '.data.results[0].revision_id')
expect_true "origin cli with the device" test "$(sql "SELECT origin, device_id FROM revisions WHERE pouch_id = '$POUCH' AND id = '$rev'")" = "cli|$DEVICE_ID"
expect_true "event names the device" test "$(sql "SELECT device_id FROM events WHERE pouch_id = '$POUCH' AND revision_id = '$rev'")" = "$DEVICE_ID"
check cli_commit_with_a_valid_signature_is_applied

body=$(commit_body "$(flow_uuid)" "[$(cli_op)]")
cli_commit "$body" ""
expect_error 401 invalid_signature
check cli_commit_without_signature_is_401

sig=$("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")
cli_commit "${body/envelope-/envelopE-}" "$sig"
expect_error 401 invalid_signature
check cli_commit_with_a_tampered_body_is_401

other=$(commit_body "$(flow_uuid)" "[$(cli_op)]")
cli_commit "$body" "$("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$other")"
expect_error 401 invalid_signature
check cli_commit_with_the_signature_of_another_body_is_401

"$POUCHCTL" keygen --out "$SMOKE_TMP/other.pem" >/dev/null
cli_commit "$body" "$("$POUCHCTL" sign-body --key "$SMOKE_TMP/other.pem" <<<"$body")"
expect_error 401 invalid_signature
check cli_commit_signed_by_another_key_is_401

# DER instead of raw R||S: the same signature re-encoded must still be refused.
der=$(python3 - "$sig" <<'EOF'
import base64, sys
h, _, s = sys.argv[1].split(".")
raw = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
def integer(b):
    b = b.lstrip(b"\0") or b"\0"
    if b[0] & 0x80: b = b"\0" + b
    return b"\x02" + bytes([len(b)]) + b
seq = integer(raw[:32]) + integer(raw[32:])
der = b"\x30" + bytes([len(seq)]) + seq
print(h + ".." + base64.urlsafe_b64encode(der).decode().rstrip("="))
EOF
)
cli_commit "$body" "$der"
expect_error 401 invalid_signature
check cli_commit_with_a_der_signature_is_401

body=$(commit_body "$(flow_uuid)" "[$(op put "$(flow_uuid)" "$(flow_uuid)" "")]")
cli_commit "$body" "$("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")"
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' signer_mismatch
check cli_signing_as_another_member_is_signer_mismatch

node_dir=$POUCH_ROOT/build/interop-node
if [[ -d $node_dir/node_modules ]]; then
    cp "$POUCH_ROOT/tests/interop/sign-body.mjs" "$node_dir/"
    body=$(commit_body "$(flow_uuid)" "[$(cli_op)]")
    cli_commit "$body" "$(node "$node_dir/sign-body.mjs" "$DEVICE_KEY" <<<"$body")"
    expect_status 200
    expect_json '.data.results[0].status' applied
    check cli_commit_signed_by_node_jose_is_accepted
else
    echo "FAIL cli_commit_signed_by_node_jose_is_accepted: run the interop suite first ($node_dir)"
fi

# --- concurrency ------------------------------------------------------------------------------
# Bodies are written without a process per body and sent by one `curl --parallel`, so the
# load is the server's, not the test's.
conc_dir=$SMOKE_TMP/conc
mkdir -p "$conc_dir"
put_body() { # put_body FILE ARTIFACT BASE: a one-op web commit body with fresh ids
    local opid rev
    read -r opid </proc/sys/kernel/random/uuid
    read -r rev </proc/sys/kernel/random/uuid
    printf '{"operation_id":"%s","epoch":"%s","ops":[{"type":"put","artifact_id":"%s","revision_id":"%s","base_revision_id":%s,"key_gen":1,"envelope":"e","signature":"s","signer_member_id":"%s","blob_ids":[]}]}' \
        "$opid" "$EPOCH" "$2" "$rev" "$3" "$WEB_MEMBER" >"$1"
}
parallel_post() { # parallel_post PREFIX N CONCURRENCY: posts PREFIX1..N.json, answers in PREFIXi.out
    local cfg=$1.curl i
    : >"$cfg"
    for ((i = 1; i <= $2; i++)); do
        ((i == 1)) || echo next >>"$cfg"  # a trailing `next` would add an empty transfer
        printf 'url = "%s/v1/pouches/%s/operations"\nrequest = "POST"\nheader = "Content-Type: application/json"\nheader = "Authorization: Bearer %s"\ndata-binary = "@%s%d.json"\noutput = "%s%d.out"\n' \
            "$POUCH_URL" "$POUCH" "$WEB_TOKEN" "$1" "$i" "$1" "$i" >>"$cfg"
    done
    curl -sS --parallel --parallel-immediate --parallel-max "$3" --config "$cfg"
    for ((i = 1; i <= $2; i++)); do cat "$1$i.out"; echo; done
}

base_rev=$(sql "SELECT head_revision_id FROM artifacts WHERE pouch_id = '$POUCH' AND id = '$A'")
for i in $(seq 1 16); do put_body "$conc_dir/w$i.json" "$A" "\"$base_rev\""; done
parallel_post "$conc_dir/w" 16 16 >"$conc_dir/w.all"
statuses=$(jq -r '.data.results[0].status' "$conc_dir/w.all" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
expect_true "one applied, fifteen conflicts: $statuses" test "$statuses" = " 1 applied; 15 conflict;"
expect_true "the rest stale_base" test "$(jq -r '.data.results[0].code // empty' "$conc_dir/w.all" | sort -u)" = stale_base
check sixteen_writers_on_one_base_exactly_one_applied

req POST /v1/pouches "$(jq -nc --arg p "$(flow_uuid)" --arg m "$WEB_MEMBER" --arg s "$(flow_b64 32)" \
    '{id:$p,key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:$s,ciphertext:$s,created_by_member:$m,signature:$s}]}')" "${web[@]}"
expect_status 201
POUCH=$(json .data.id) EPOCH=$(json .data.epoch)
for ((i = 1; i <= 1000; i++)); do
    read -r artifact </proc/sys/kernel/random/uuid
    put_body "$conc_dir/c$i.json" "$artifact" null
done
parallel_post "$conc_dir/c" 1000 32 >"$conc_dir/c.all"
expect_true "all applied: $(jq -r '.data.results[0].status' "$conc_dir/c.all" | sort | uniq -c | tr '\n' ' ')" \
    test "$(jq -r '.data.results[0].status' "$conc_dir/c.all" | grep -c '^applied$')" = 1000
stats=$(sql "SELECT count(*), min(seq), max(seq), count(DISTINCT seq) FROM events WHERE pouch_id = '$POUCH'")
expect_true "events seqs $stats" test "$stats" = "1000|1|1000|1000"
expect_true "response seqs distinct" test "$(jq -r '.data.results[0].seq' "$conc_dir/c.all" | sort -n | uniq | wc -l)" = 1000
expect_true "high_water" test "$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")" = 1000
check thousand_concurrent_commits_have_seqs_1_to_n_without_gaps

smoke_done
