// sql_commit.h -- statements of the commit endpoint (op 1, decisions §5.3). All run inside
// the commit's transaction while it holds the pouch row lock. A commit runs a fixed number of
// them whatever its size: the idempotency probe, one state read (kCommitState) for the
// decisions of common/rules/commit.h, then one multi-row write per table (arrays unnested)
// and the pouch update.
#pragma once

#include "common/db/pool.h"

namespace pouch::sync::sql {

inline const db::Statement kStoredCommit{
    "commit_stored", "SELECT body_hash, response FROM commit_log WHERE pouch_id = $1 AND operation_id = $2"};

inline const db::Statement kStoreCommit{
    "commit_store",
    "INSERT INTO commit_log (pouch_id, operation_id, body_hash, response) VALUES ($1, $2, $3, $4)"};

// Everything the batch's decisions read, one row per fact, tagged by `kind`. Lookups by id go
// through LATERAL ... LIMIT 1 per id, so even a generic plan on tables without statistics
// fetches each by primary key instead of reading a whole pouch (tests/unit/
// sync_commit_plan_test.cpp). The artifact lookup hides the pouch id from the estimator
// ((SELECT $1)): a custom plan compared it with statistics from before the pouch grew, in
// which it looked empty, and every index led by pouch_id (artifacts_keyset,
// artifacts_head_revision) then tied with the primary key; make bench saw Index Cond
// pouch_id, Filter id on artifacts_head_revision, 2 ms per op at 4,000 artifacts, until the
// next autoanalyze. As an unknown value it is estimated at a pouch's average size.
//   rev    k = revision id, a = its artifact, h = its envelope hash, n = its seq
//          ($2: the ops' revision ids and merge parents; by primary key)
//   art    k = artifact id, a = its head revision ($3: the ops' artifacts)
//   blob   k = an uploaded blob of the account ($5: the ops' blob ids), held FOR KEY SHARE:
//          `pouchctl gc` locks a blob FOR UPDATE and re-checks references before it deletes,
//          so a commit referencing an old blob cannot race its deletion
//   member k = an active member of the account ($6: the ops' signers)
//   quota  n = the plan's storage_bytes, m = what the account stores or has reserved
// $1 pouch, $4 account.
inline const db::Statement kCommitState{
    "commit_state",
    "WITH held_blobs AS ("
    "  SELECT id FROM blobs WHERE account_id = $4 AND id = ANY($5::text[]) FOR KEY SHARE)"
    " SELECT 'rev' AS kind, r.id::text AS k, r.artifact_id::text AS a, r.envelope_hash AS h,"
    "        r.seq AS n, NULL::bigint AS m"
    "   FROM unnest($2::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id, artifact_id, envelope_hash, seq FROM revisions"
    "         WHERE pouch_id = $1 AND id = want.id LIMIT 1) r"
    " UNION ALL"
    " SELECT 'art', a.id::text, a.head_revision_id::text, NULL, NULL, NULL"
    "   FROM unnest($3::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id, head_revision_id FROM artifacts"
    "         WHERE pouch_id = (SELECT $1::uuid) AND id = want.id LIMIT 1) a"
    " UNION ALL"
    " SELECT 'blob', id, NULL, NULL, NULL, NULL FROM held_blobs"
    " UNION ALL"
    " SELECT 'member', m.id::text, NULL, NULL, NULL, NULL"
    "   FROM unnest($6::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id FROM members WHERE id = want.id AND account_id = $4"
    "           AND removed_at IS NULL LIMIT 1) m"
    " UNION ALL"
    " SELECT 'quota', NULL, NULL, NULL, p.storage_bytes,"
    "        account_stored_bytes(a.id) + account_reserved_bytes(a.id)"
    "   FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = $4"};

// The applied revisions of a batch and their `revision` events, one row per element of the
// arrays $4..$17 (blob ids as one array literal per row). $1 pouch, $2 origin, $3 device,
// $18 the pouch's epoch.
inline const db::Statement kInsertRevisions{
    "commit_insert_revisions",
    "WITH rev AS ("
    "  INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, base_revision_id,"
    "    merge_parent_id, conflict_id, key_gen, envelope, envelope_hash, signature,"
    "    signer_member_id, stored_size, origin, blob_ids, device_id)"
    "  SELECT $1, u.id, u.artifact_id, u.seq, u.kind, u.base, u.merge_parent, u.conflict_id,"
    "         u.key_gen, u.envelope, u.envelope_hash, u.signature, u.signer, u.stored_size, $2,"
    "         u.blob_ids::text[], $3::uuid"
    "    FROM unnest($4::uuid[], $5::uuid[], $6::bigint[], $7::text[], $8::uuid[], $9::uuid[],"
    "                $10::uuid[], $11::bigint[], $12::text[], $13::text[], $14::text[],"
    "                $15::uuid[], $16::bigint[], $17::text[])"
    "         AS u(id, artifact_id, seq, kind, base, merge_parent, conflict_id, key_gen,"
    "              envelope, envelope_hash, signature, signer, stored_size, blob_ids)"
    "  RETURNING seq, artifact_id, id)"
    " INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id)"
    " SELECT $1, $18::uuid, seq, 'revision', artifact_id, id, $3::uuid FROM rev"};

// The final head of every artifact the batch wrote, one row per artifact. An empty name_index
// ($5) leaves the stored one (a new artifact gets ''), since an op's name_index is never empty.
inline const db::Statement kUpsertArtifacts{
    "commit_upsert_artifacts",
    "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, name_index, deleted)"
    " SELECT $1, u.id, u.head, u.seq, u.name_index, u.deleted"
    "   FROM unnest($2::uuid[], $3::uuid[], $4::bigint[], $5::text[], $6::boolean[])"
    "        AS u(id, head, seq, name_index, deleted)"
    " ON CONFLICT (pouch_id, id) DO UPDATE SET head_revision_id = EXCLUDED.head_revision_id,"
    "   head_seq = EXCLUDED.head_seq,"
    "   name_index = CASE WHEN EXCLUDED.name_index = '' THEN artifacts.name_index"
    "                     ELSE EXCLUDED.name_index END,"
    "   deleted = EXCLUDED.deleted, updated_at = now()"};

inline const db::Statement kAdvancePouch{
    "commit_advance_pouch",
    "UPDATE pouches SET high_water = $2, stored_bytes = stored_bytes + $3 WHERE id = $1"};

}  // namespace pouch::sync::sql
