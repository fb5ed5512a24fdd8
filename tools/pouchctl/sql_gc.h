// sql_gc.h -- the statements of `pouchctl gc` and `pouchctl pouch reset-epoch` (gc.cpp),
// typed by their parameter and row structs and checked by tests/unit/db_statements_test.cpp.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "common/db/keys.h"
#include "common/db/query.h"

namespace pouchctl::sql {

namespace db = pouch::db;
using db::ByAccount;

struct ByPouch {
    std::string pouch_id;
    static auto db_params() { return std::tuple{db::col("pouch_id", &ByPouch::pouch_id)}; }
};
struct PouchEpoch {
    std::string pouch_id, epoch;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &PouchEpoch::pouch_id),
                          db::col("epoch", &PouchEpoch::epoch)};
    }
};
struct BlobsOfAccount {
    std::string account_id;
    std::vector<std::string> ids;
    static auto db_params() {
        return std::tuple{db::col("account_id", &BlobsOfAccount::account_id),
                          db::col("ids", &BlobsOfAccount::ids)};
    }
};
struct BytesOfAccount {
    std::string account_id;
    long long bytes = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &BytesOfAccount::account_id),
                          db::col("bytes", &BytesOfAccount::bytes)};
    }
};
struct Days {
    int days = 0;
    static auto db_params() { return std::tuple{db::col("days", &Days::days)}; }
};
struct Id {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &Id::id)}; }
};
struct AccountId {
    std::string account_id;
    static auto db_columns() { return std::tuple{db::col("account_id", &AccountId::account_id)}; }
};
struct Count {
    long long n = 0;
    static auto db_columns() { return std::tuple{db::col("n", &Count::n)}; }
};
struct Released {
    long long n = 0, bytes = 0;
    static auto db_columns() {
        return std::tuple{db::col("n", &Released::n), db::col("bytes", &Released::bytes)};
    }
};
struct DeletedBlob {
    std::string id;
    long long stored_size = 0;
    static auto db_columns() {
        return std::tuple{db::col("id", &DeletedBlob::id),
                          db::col("stored_size", &DeletedBlob::stored_size)};
    }
};
struct PouchLog {
    std::string epoch;
    long long high_water = 0;
    static auto db_columns() {
        return std::tuple{db::col("epoch", &PouchLog::epoch),
                          db::col("high_water", &PouchLog::high_water)};
    }
};
struct HighWater {
    long long high_water = 0;
    static auto db_columns() { return std::tuple{db::col("high_water", &HighWater::high_water)}; }
};

// --- gc statements ---------------------------------------------------------------------------

inline const db::Query<db::NoParams, Released> kReleaseReservations{
    "gc_release_reservations",
    "WITH d AS (DELETE FROM blob_reservations WHERE expires_at <= now() RETURNING stored_size)"
    " SELECT count(*) AS n, coalesce(sum(stored_size), 0)::bigint AS bytes FROM d"};

#define GC_UNREFERENCED                                               \
    "b.created_at < now() - interval '24 hours' AND NOT EXISTS ("     \
    "  SELECT 1 FROM revisions r JOIN pouches p ON p.id = r.pouch_id" \
    "   WHERE p.account_id = b.account_id AND r.blob_ids @> ARRAY[b.id])"

inline const db::Query<db::NoParams, AccountId> kAccountsWithGarbage{
    "gc_accounts_with_garbage", "SELECT DISTINCT b.account_id FROM blobs b WHERE " GC_UNREFERENCED};

inline const db::Query<ByAccount, Id> kLockAccount{"gc_lock_account",
                             "SELECT id FROM storage_accounts WHERE id = $1 FOR UPDATE"};

// Locks the candidates first: a commit that has just checked one of them (and holds it FOR
// SHARE) finishes before the re-check below, which then sees its revision.
inline const db::Query<ByAccount, Id> kLockUnreferenced{
    "gc_lock_unreferenced", "SELECT b.id FROM blobs b WHERE b.account_id = $1 AND " GC_UNREFERENCED
                            " ORDER BY b.id FOR UPDATE OF b"};

inline const db::Query<BlobsOfAccount, DeletedBlob> kDeleteUnreferenced{
    "gc_delete_unreferenced",
    "DELETE FROM blobs b WHERE b.account_id = $1 AND b.id = ANY($2::text[]) AND " GC_UNREFERENCED
    " RETURNING b.id, b.stored_size"};

inline const db::Query<BytesOfAccount> kSubtractBlobBytes{
    "gc_subtract_blob_bytes",
    "UPDATE storage_accounts SET blob_bytes = blob_bytes - $2 WHERE id = $1"};

inline const db::Query<ByAccount, Id> kRecordedBlobs{"gc_recorded_blobs", "SELECT id FROM blobs WHERE account_id = $1"};

// Every reservation row of the account, active or expired: an upload may be between its PUT
// and its row for any of them (blobs.cpp trusts its PUT while its reservation row lives).
inline const db::Query<ByAccount, Id> kReservedBlobs{
    "gc_reserved_blobs", "SELECT blob_id AS id FROM blob_reservations WHERE account_id = $1"};

// --- retention (decisions §13) ------------------------------------------------------------

// A replay row guards its jti until expires_at; five minutes later it is history.
inline const db::Query<db::NoParams, Count> kDeleteReplay{
    "gc_delete_replay",
    "WITH d AS (DELETE FROM dpop_replay WHERE expires_at < now() - interval '5 minutes'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// A login request ends when it is redeemed or denied, else at its expiry (approved and never
// redeemed, or never decided); it is kept a day after that.
inline const db::Query<db::NoParams, Count> kDeleteLoginRequests{
    "gc_delete_login_requests",
    "WITH d AS (DELETE FROM cli_login_requests"
    "            WHERE CASE status WHEN 'redeemed' THEN coalesce(redeemed_at, expires_at)"
    "                              WHEN 'denied' THEN coalesce(decided_at, expires_at)"
    "                              ELSE expires_at END < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// Web sessions end after 14 days unused or 30 days after they began (common/auth/caller.cpp).
inline const db::Query<db::NoParams, Count> kDeleteSessions{
    "gc_delete_sessions",
    "WITH d AS (DELETE FROM web_sessions"
    "            WHERE expires_at <= now() OR last_used_at <= now() - interval '14 days'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

inline const db::Query<db::NoParams, Count> kDeleteAccessTokens{
    "gc_delete_access_tokens",
    "WITH d AS (DELETE FROM access_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// A used refresh token is kept until its own expiry (+ 1 day), so presenting it again is still
// recognised as reuse for as long as it could have been valid.
inline const db::Query<db::NoParams, Count> kDeleteRefreshTokens{
    "gc_delete_refresh_tokens",
    "WITH d AS (DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// The stored answers of commits older than POUCH_IDEMPOTENCY_DAYS ($1): a replay of such an
// operation_id is then applied as new, which the ops' own ids make safe (decisions §5.3, §13).
inline const db::Query<Days, Count> kDeleteCommitLog{
    "gc_delete_commit_log",
    "WITH d AS (DELETE FROM commit_log WHERE created_at < now() - $1::int * interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// Bundles of shares that can never be fetched again (revoked, consumed, expired) are dropped;
// the row stays for the owner's list and its state. The trigger of sql/008 gives the bytes back.
inline const db::Query<db::NoParams, Count> kPurgeShareBundles{
    "gc_purge_share_bundles",
    "WITH d AS (UPDATE shares SET bundle = NULL"
    "            WHERE bundle IS NOT NULL AND (revoked_at IS NOT NULL OR consumed_at IS NOT NULL"
    "                  OR expires_at <= now())"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

inline const db::Query<db::NoParams, Count> kDeleteConnectTokens{
    "gc_delete_connect_tokens",
    "WITH d AS (DELETE FROM connect_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// --- reset-epoch statements ------------------------------------------------------------------

// Locks the pouch as a commit does, so no commit straddles the reset.
inline const db::Query<ByPouch, PouchLog> kLockPouch{"pouch_lock",
                           "SELECT epoch, high_water FROM pouches WHERE id = $1 FOR UPDATE"};
// The new epoch's log is the pouch's history renumbered 1..N in its old order: revisions get
// consecutive seqs, heads follow, and one `revision` event per revision replays it. So seqs
// stay gap-free within the epoch, keep ordering artifacts and histories, and the next commit
// continues at N + 1 (a reset never lets old and new seqs interleave).
inline const db::Query<ByPouch> kRenumberRevisions{
    "pouch_renumber_revisions",
    "UPDATE revisions r SET seq = n.new_seq"
    "  FROM (SELECT id, row_number() OVER (ORDER BY seq, id) AS new_seq"
    "          FROM revisions WHERE pouch_id = $1) n"
    " WHERE r.pouch_id = $1 AND r.id = n.id"};
inline const db::Query<ByPouch> kRenumberHeads{
    "pouch_renumber_heads",
    "UPDATE artifacts a SET head_seq = r.seq FROM revisions r"
    " WHERE a.pouch_id = $1 AND r.pouch_id = $1 AND r.id = a.head_revision_id"};
inline const db::Query<ByPouch, Count> kDeleteOldEvents{
    "pouch_delete_old_events",
    "WITH d AS (DELETE FROM events WHERE pouch_id = $1 RETURNING 1) SELECT count(*) AS n FROM d"};
inline const db::Query<PouchEpoch> kReplayHistory{
    "pouch_replay_history",
    "INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id, created_at)"
    " SELECT pouch_id, $2, seq, 'revision', artifact_id, id, device_id, created_at"
    "   FROM revisions WHERE pouch_id = $1"};
inline const db::Query<PouchEpoch, HighWater> kSetEpoch{
    "pouch_set_epoch",
    "UPDATE pouches SET epoch = $2,"
    "       high_water = (SELECT count(*) FROM revisions WHERE pouch_id = $1)"
    " WHERE id = $1 RETURNING high_water"};
inline const db::Query<PouchEpoch> kDeleteOldCursors{"pouch_delete_old_cursors",
                                  "DELETE FROM device_cursors WHERE pouch_id = $1 AND epoch <> $2"};

}  // namespace pouchctl::sql
