#!/usr/bin/env bash
# pgbench-commit.sh BATCH TOKEN_HASH POUCH ACCOUNT MEMBER DEVICE -- prints a pgbench script that
# runs the SQL one CLI commit of BATCH new puts executes (handlers/sync/sql_commit.h,
# pouch_access.cpp, common/auth/caller.cpp), in the handler's order: the access-token lookup,
# the pouch read, then in one transaction the pouch row lock, the idempotency lookup, the
# quota, per op a savepoint with the revision/member/artifact reads and the three inserts,
# the pouch advance and the commit_log row. The baseline of target 1 (docs/PERFORMANCE.md).
set -euo pipefail
batch=$1 token=$2 pouch=$3 account=$4 member=$5 device=$6
env=$(head -c 96 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
cat <<SQL
SELECT t.device_id, t.jkt, t.expires_at <= now() AS expired, t.revoked_at IS NOT NULL AS token_revoked, d.revoked_at IS NOT NULL AS device_revoked, d.member_id, d.account_id, d.sign_x, d.sign_y, a.owner_user_id, u.role, (d.last_seen_at IS NULL OR d.last_seen_at < now() - interval '1 minute') AS stale FROM access_tokens t JOIN devices d ON d.id = t.device_id JOIN storage_accounts a ON a.id = d.account_id JOIN users u ON u.id = a.owner_user_id WHERE t.token_hash = '$token';
SELECT id, account_id, epoch, key_gen, high_water, stored_bytes, iso(created_at) AS created_at FROM pouches WHERE id = '$pouch' AND account_id = '$account';
SELECT gen_random_uuid() AS opid \gset
BEGIN;
SELECT id, account_id, epoch, key_gen, high_water, stored_bytes, iso(created_at) AS created_at FROM pouches WHERE id = '$pouch' AND account_id = '$account' FOR UPDATE \gset
SELECT body_hash, response FROM commit_log WHERE pouch_id = '$pouch' AND operation_id = :opid;
SELECT p.storage_bytes, a.blob_bytes + (SELECT coalesce(sum(stored_bytes), 0) FROM pouches WHERE account_id = a.id) + (SELECT coalesce(sum(stored_size), 0) FROM blob_reservations WHERE account_id = a.id AND expires_at > now()) AS committed FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = '$account';
SQL
for ((i = 1; i <= batch; i++)); do
    cat <<SQL
SELECT gen_random_uuid() AS rev, gen_random_uuid() AS art \gset
SELECT artifact_id, envelope_hash, seq FROM revisions WHERE pouch_id = '$pouch' AND id = :rev;
SELECT 1 FROM members WHERE id = '$member' AND account_id = '$account' AND removed_at IS NULL;
SELECT head_revision_id FROM artifacts WHERE pouch_id = '$pouch' AND id = :art;
SAVEPOINT op;
INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, base_revision_id, merge_parent_id, conflict_id, key_gen, envelope, envelope_hash, signature, signer_member_id, stored_size, origin, blob_ids, device_id) VALUES ('$pouch', :rev, :art, :high_water + $i, 'put', NULL, NULL, NULL, 1, '$env', 'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g', 'c2lnbmF0dXJl', '$member', 128, 'cli', '{}'::text[], '$device');
INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, name_index, deleted) VALUES ('$pouch', :art, :rev, :high_water + $i, coalesce(NULL, ''), false) ON CONFLICT (pouch_id, id) DO UPDATE SET head_revision_id = EXCLUDED.head_revision_id, head_seq = EXCLUDED.head_seq, name_index = coalesce(NULL, artifacts.name_index), deleted = EXCLUDED.deleted, updated_at = now();
INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id) VALUES ('$pouch', :epoch, :high_water + $i, 'revision', :art, :rev, '$device');
RELEASE SAVEPOINT op;
SQL
done
cat <<SQL
UPDATE pouches SET high_water = :high_water + $batch, stored_bytes = stored_bytes + $((batch * 128)) WHERE id = '$pouch';
INSERT INTO commit_log (pouch_id, operation_id, body_hash, response) VALUES ('$pouch', :opid, 'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g', repeat('r', $((batch * 110 + 20))));
COMMIT;
SQL
