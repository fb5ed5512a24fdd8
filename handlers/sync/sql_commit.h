// sql_commit.h -- statements of the commit endpoint (op 1, decisions §5.3). All run inside
// the commit's transaction while it holds the pouch row lock.
#pragma once

#include "common/db/pool.h"

namespace pouch::sync::sql {

inline const db::Statement kStoredCommit{
    "commit_stored", "SELECT body_hash, response FROM commit_log WHERE pouch_id = $1 AND operation_id = $2"};

inline const db::Statement kStoreCommit{
    "commit_store",
    "INSERT INTO commit_log (pouch_id, operation_id, body_hash, response) VALUES ($1, $2, $3, $4)"};

// The account's limit and what it already uses or has reserved (decisions §5.5).
inline const db::Statement kQuota{
    "commit_quota",
    "SELECT p.storage_bytes,"
    "       account_stored_bytes(a.id) + account_reserved_bytes(a.id) AS committed"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = $1"};

// By primary key: the commit's lookups must not be able to use any other index (see
// sql/007_revisions_history_order.sql and tests/unit/sync_commit_plan_test.cpp).
inline const db::Statement kRevision{
    "commit_revision",
    "SELECT artifact_id, envelope_hash, seq FROM revisions WHERE pouch_id = $1 AND id = $2"};

inline const db::Statement kActiveMember{
    "commit_active_member",
    "SELECT 1 FROM members WHERE id = $1 AND account_id = $2 AND removed_at IS NULL"};

// FOR KEY SHARE: `pouchctl gc` locks a blob FOR UPDATE and re-checks references before it
// deletes, so a commit referencing an old blob cannot race its deletion.
inline const db::Statement kUploadedBlobs{
    "commit_uploaded_blobs",
    "SELECT id FROM blobs WHERE account_id = $1 AND id = ANY($2::text[]) FOR KEY SHARE"};

inline const db::Statement kArtifact{
    "commit_artifact",
    "SELECT head_revision_id FROM artifacts WHERE pouch_id = $1 AND id = $2"};

inline const db::Statement kInsertRevision{
    "commit_insert_revision",
    "INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, base_revision_id,"
    "  merge_parent_id, conflict_id, key_gen, envelope, envelope_hash, signature,"
    "  signer_member_id, stored_size, origin, blob_ids, device_id)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::text[], $17)"};

inline const db::Statement kUpsertArtifact{
    "commit_upsert_artifact",
    "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, name_index, deleted)"
    " VALUES ($1, $2, $3, $4, coalesce($5, ''), $6)"
    " ON CONFLICT (pouch_id, id) DO UPDATE SET head_revision_id = EXCLUDED.head_revision_id,"
    "   head_seq = EXCLUDED.head_seq, name_index = coalesce($5, artifacts.name_index),"
    "   deleted = EXCLUDED.deleted, updated_at = now()"};

inline const db::Statement kInsertEvent{
    "commit_insert_event",
    "INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id)"
    " VALUES ($1, $2, $3, 'revision', $4, $5, $6)"};

inline const db::Statement kAdvancePouch{
    "commit_advance_pouch",
    "UPDATE pouches SET high_water = $2, stored_bytes = stored_bytes + $3 WHERE id = $1"};

}  // namespace pouch::sync::sql
