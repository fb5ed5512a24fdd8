// sql_commit.h -- statements of the commit endpoint (op 1, decisions §5.3), typed by their
// parameter and row structs (common/db/query.h; the structs of the request are in
// commit_types.h). All run inside the commit's transaction while it holds the pouch row lock.
// A commit runs a fixed number of them whatever its size: the idempotency probe, one state read
// (kCommitState) for the decisions of common/rules/commit.h, then one multi-row write per table
// (the batch column by column, one binary-format array parameter per field: db::Columns, read
// with unnest; nothing for PostgreSQL to lex) and the pouch update.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/db/query.h"
#include "handlers/sync/commit_types.h"

namespace pouch::sync::sql {

// ---- parameters and rows ------------------------------------------------------------------------

struct CommitKey {
    std::string pouch_id, operation_id;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &CommitKey::pouch_id),
                          db::col("operation_id", &CommitKey::operation_id)};
    }
};

struct StoredCommit {
    std::string body_hash, response;  // response: the answer's data as first sent
    static auto db_columns() {
        return std::tuple{db::col("body_hash", &StoredCommit::body_hash),
                          db::col("response", &StoredCommit::response)};
    }
};

struct StoreCommit {
    std::string pouch_id, operation_id, body_hash, response;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &StoreCommit::pouch_id),
                          db::col("operation_id", &StoreCommit::operation_id),
                          db::col("body_hash", &StoreCommit::body_hash),
                          db::col("response", &StoreCommit::response)};
    }
};

// The ids the batch's decisions look up (each list without repeats).
struct StateParams {
    std::string pouch_id;
    std::vector<std::string> revision_ids;  // the ops' revision ids and merge parents
    std::vector<std::string> artifact_ids;
    std::string account_id;
    std::vector<std::string> blob_ids;
    std::vector<std::string> signer_ids;
    std::string owner_account_id;  // the pouch's owner: its blobs and plan (SHARING.md §8)
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &StateParams::pouch_id),
                          db::col("revision_ids", &StateParams::revision_ids),
                          db::col("artifact_ids", &StateParams::artifact_ids),
                          db::col("account_id", &StateParams::account_id),
                          db::col("blob_ids", &StateParams::blob_ids),
                          db::col("signer_ids", &StateParams::signer_ids),
                          db::col("owner_account_id", &StateParams::owner_account_id)};
    }
};

// One fact of kCommitState, tagged by `kind`; the columns its kind does not use are NULL.
struct StateFact {
    std::string kind;
    std::optional<std::string> id;                // rev, art, blob, member
    std::optional<std::string> artifact_id;       // rev: its artifact
    std::optional<std::string> envelope_hash;     // rev
    std::optional<long long> seq;                 // rev
    std::optional<std::string> head_revision_id;  // art
    std::optional<long long> limit_bytes;         // quota: the plan's storage_bytes
    std::optional<long long> used_bytes;          // quota: stored + reserved
    static auto db_columns() {
        return std::tuple{db::col("kind", &StateFact::kind),
                          db::col("id", &StateFact::id),
                          db::col("artifact_id", &StateFact::artifact_id),
                          db::col("envelope_hash", &StateFact::envelope_hash),
                          db::col("seq", &StateFact::seq),
                          db::col("head_revision_id", &StateFact::head_revision_id),
                          db::col("limit_bytes", &StateFact::limit_bytes),
                          db::col("used_bytes", &StateFact::used_bytes)};
    }
};

struct InsertRevisions {
    std::string pouch_id;
    std::string origin;                      // cli or web
    std::optional<std::string> device_id;    // a CLI's
    std::string epoch;                       // the pouch's, for the events
    db::Columns<AppliedOp> ops;              // the ops that applied fresh, in order ($5..$19)
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &InsertRevisions::pouch_id),
                          db::col("origin", &InsertRevisions::origin),
                          db::col("device_id", &InsertRevisions::device_id),
                          db::col("epoch", &InsertRevisions::epoch),
                          db::col("ops", &InsertRevisions::ops)};
    }
};

struct UpsertArtifacts {
    std::string pouch_id;
    db::Columns<ArtifactHead> heads;  // $2..$6
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &UpsertArtifacts::pouch_id),
                          db::col("heads", &UpsertArtifacts::heads)};
    }
};

struct AdvancePouch {
    std::string pouch_id;
    long long high_water = 0;
    long long added_bytes = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &AdvancePouch::pouch_id),
                          db::col("high_water", &AdvancePouch::high_water),
                          db::col("added_bytes", &AdvancePouch::added_bytes)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

inline const db::Query<CommitKey, StoredCommit> kStoredCommit{
    "commit_stored",
    "SELECT body_hash, response FROM commit_log WHERE pouch_id = $1 AND operation_id = $2"};

inline const db::Query<StoreCommit> kStoreCommit{
    "commit_store",
    "INSERT INTO commit_log (pouch_id, operation_id, body_hash, response) VALUES ($1, $2, $3, $4)"};

// Everything the batch's decisions read, one row per fact, tagged by `kind` (StateFact). Lookups
// by id go through LATERAL ... LIMIT 1 per id, so even a generic plan on tables without
// statistics fetches each by primary key instead of reading a whole pouch (tests/unit/
// sync_commit_plan_test.cpp). The artifact lookup hides the pouch id from the estimator
// ((SELECT $1)): a custom plan compared it with statistics from before the pouch grew, in
// which it looked empty, and every index led by pouch_id (artifacts_keyset,
// artifacts_head_revision) then tied with the primary key; make bench saw Index Cond
// pouch_id, Filter id on artifacts_head_revision, 2 ms per op at 4,000 artifacts, until the
// next autoanalyze. As an unknown value it is estimated at a pouch's average size.
//   rev    a stored revision: id, artifact_id, envelope_hash, seq
//          ($2: the ops' revision ids and merge parents; by primary key)
//   art    an existing artifact: id, head_revision_id ($3: the ops' artifacts)
//   blob   id = an uploaded blob of the pouch's owner ($5: the ops' blob ids), held FOR KEY SHARE:
//          `pouchctl gc` locks a blob FOR UPDATE and re-checks references before it deletes,
//          so a commit referencing an old blob cannot race its deletion
//   member id = an active member of the caller's account ($6: the ops' signers)
//   quota  limit_bytes = the owner's plan's storage_bytes, used_bytes = what the owner stores
//          or has reserved (the owner pays for a shared pouch, SHARING.md §8)
// $1 pouch, $4 the caller's account, $7 the pouch's owner.
inline const db::Query<StateParams, StateFact> kCommitState{
    "commit_state",
    "WITH held_blobs AS ("
    "  SELECT id FROM blobs WHERE account_id = $7 AND id = ANY($5::text[]) FOR KEY SHARE)"
    " SELECT 'rev' AS kind, r.id::text AS id, r.artifact_id::text AS artifact_id,"
    "        r.envelope_hash, r.seq, NULL::text AS head_revision_id,"
    "        NULL::bigint AS limit_bytes, NULL::bigint AS used_bytes"
    "   FROM unnest($2::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id, artifact_id, envelope_hash, seq FROM revisions"
    "         WHERE pouch_id = $1 AND id = want.id LIMIT 1) r"
    " UNION ALL"
    " SELECT 'art', a.id::text, NULL, NULL, NULL, a.head_revision_id::text, NULL, NULL"
    "   FROM unnest($3::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id, head_revision_id FROM artifacts"
    "         WHERE pouch_id = (SELECT $1::uuid) AND id = want.id LIMIT 1) a"
    " UNION ALL"
    " SELECT 'blob', id, NULL, NULL, NULL, NULL, NULL, NULL FROM held_blobs"
    " UNION ALL"
    " SELECT 'member', m.id::text, NULL, NULL, NULL, NULL, NULL, NULL"
    "   FROM unnest($6::uuid[]) want(id) CROSS JOIN LATERAL ("
    "        SELECT id FROM members WHERE id = want.id AND account_id = $4"
    "           AND removed_at IS NULL LIMIT 1) m"
    " UNION ALL"
    " SELECT 'quota', NULL, NULL, NULL, NULL, NULL, p.storage_bytes,"
    "        account_stored_bytes(a.id) + account_reserved_bytes(a.id)"
    "   FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = $7"};

// The applied revisions of a batch and their `revision` events, one row per op: $5..$19 are
// the columns of the applied ops (db::Columns<AppliedOp>: the op's fields in their declared
// order, plus seq, envelope_hash, stored_size; name_index goes to kUpsertArtifacts), zipped by
// unnest under the fields' names (sync_commit_types_test.cpp holds POUCH_APPLIED_OP_COLUMNS to
// AppliedOp's fields, db_statements_test each $n's array type to its field's). Ids travel as
// text and are cast here. $1 pouch, $2 origin, $3 device, $4 the pouch's epoch.
#define POUCH_APPLIED_OP_COLUMNS                                                        \
    "type, artifact_id, revision_id, base_revision_id, merge_parent_id, name_index,"    \
    " conflict_id, key_gen, envelope, signature, signer_member_id, blob_ids, seq,"      \
    " envelope_hash, stored_size"
inline const db::Query<InsertRevisions> kInsertRevisions{
    "commit_insert_revisions",
    "WITH rev AS ("
    "  INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, base_revision_id,"
    "    merge_parent_id, conflict_id, key_gen, envelope, envelope_hash, signature,"
    "    signer_member_id, stored_size, origin, blob_ids, device_id)"
    "  SELECT $1, o.revision_id::uuid, o.artifact_id::uuid, o.seq, o.type,"
    "         o.base_revision_id::uuid, o.merge_parent_id::uuid, o.conflict_id::uuid, o.key_gen,"
    "         o.envelope, o.envelope_hash, o.signature, o.signer_member_id::uuid, o.stored_size,"
    "         $2, o.blob_ids::text[], $3::uuid"
    "    FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],"
    "                $11::text[], $12::int8[], $13::text[], $14::text[], $15::text[],"
    "                $16::text[], $17::int8[], $18::text[], $19::int8[])"
    "      AS o(" POUCH_APPLIED_OP_COLUMNS ")"
    "  RETURNING seq, artifact_id, id)"
    " INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id)"
    " SELECT $1, $4::uuid, seq, 'revision', artifact_id, id, $3::uuid FROM rev"};

// The final head of every artifact the batch wrote, one row per element of the columns
// $2..$6 (db::Columns<ArtifactHead>, zipped as kInsertRevisions' are). A NULL name_index leaves
// the stored one (a new artifact gets '').
#define POUCH_ARTIFACT_HEAD_COLUMNS "artifact_id, head_revision_id, head_seq, name_index, deleted"
inline const db::Query<UpsertArtifacts> kUpsertArtifacts{
    "commit_upsert_artifacts",
    "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, name_index, deleted)"
    " SELECT $1, h.artifact_id::uuid, h.head_revision_id::uuid, h.head_seq,"
    "        coalesce(h.name_index, ''), h.deleted"
    "   FROM unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::bool[])"
    "     AS h(" POUCH_ARTIFACT_HEAD_COLUMNS ")"
    " ON CONFLICT (pouch_id, id) DO UPDATE SET head_revision_id = EXCLUDED.head_revision_id,"
    "   head_seq = EXCLUDED.head_seq,"
    "   name_index = CASE WHEN EXCLUDED.name_index = '' THEN artifacts.name_index"
    "                     ELSE EXCLUDED.name_index END,"
    "   deleted = EXCLUDED.deleted, updated_at = now()"};

inline const db::Query<AdvancePouch> kAdvancePouch{
    "commit_advance_pouch",
    "UPDATE pouches SET high_water = $2, stored_bytes = stored_bytes + $3 WHERE id = $1"};

}  // namespace pouch::sync::sql
