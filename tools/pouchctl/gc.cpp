// gc.cpp -- the operator's clean-up commands (decisions §5.2, §5.5): `pouchctl gc` (run
// hourly by pouch-gc.timer) and `pouchctl pouch reset-epoch`. Blob files are reached through
// common/storage (the one owner of their layout); the lock order is the sync handler's: blob
// files are placed and removed only while the account's storage_accounts row is locked.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "common/crypto/random.h"
#include "common/db/pool.h"
#include "common/db/array.h"
#include "common/types/uuid.h"
#include "common/wakeup/wakeup.h"
#include "common/redis/client.h"
#include "common/storage/blob_store.h"
#include "tools/pouchctl/commands.h"

using pouch::db::Statement;

namespace {

constexpr time_t kGrace = 24 * 3600;  // unreferenced blobs and stray files live this long

// --- gc statements ---------------------------------------------------------------------------

const Statement kReleaseReservations{
    "gc_release_reservations",
    "WITH d AS (DELETE FROM blob_reservations WHERE expires_at <= now() RETURNING stored_size)"
    " SELECT count(*) AS n, coalesce(sum(stored_size), 0) AS bytes FROM d"};

#define GC_UNREFERENCED                                               \
    "b.created_at < now() - interval '24 hours' AND NOT EXISTS ("     \
    "  SELECT 1 FROM revisions r JOIN pouches p ON p.id = r.pouch_id" \
    "   WHERE p.account_id = b.account_id AND r.blob_ids @> ARRAY[b.id])"

const Statement kAccountsWithGarbage{
    "gc_accounts_with_garbage", "SELECT DISTINCT b.account_id FROM blobs b WHERE " GC_UNREFERENCED};

const Statement kLockAccount{"gc_lock_account",
                             "SELECT id FROM storage_accounts WHERE id = $1 FOR UPDATE"};

// Locks the candidates first: a commit that has just checked one of them (and holds it FOR
// SHARE) finishes before the re-check below, which then sees its revision.
const Statement kLockUnreferenced{
    "gc_lock_unreferenced", "SELECT b.id FROM blobs b WHERE b.account_id = $1 AND " GC_UNREFERENCED
                            " ORDER BY b.id FOR UPDATE OF b"};

const Statement kDeleteUnreferenced{
    "gc_delete_unreferenced",
    "DELETE FROM blobs b WHERE b.account_id = $1 AND b.id = ANY($2::text[]) AND " GC_UNREFERENCED
    " RETURNING b.id, b.stored_size"};

const Statement kSubtractBlobBytes{
    "gc_subtract_blob_bytes",
    "UPDATE storage_accounts SET blob_bytes = blob_bytes - $2 WHERE id = $1"};

const Statement kRecordedBlobs{"gc_recorded_blobs", "SELECT id FROM blobs WHERE account_id = $1"};

// --- retention (decisions §13) ------------------------------------------------------------

// A replay row guards its jti until expires_at; five minutes later it is history.
const Statement kDeleteReplay{
    "gc_delete_replay",
    "WITH d AS (DELETE FROM dpop_replay WHERE expires_at < now() - interval '5 minutes'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// A login request ends when it is redeemed or denied, else at its expiry (approved and never
// redeemed, or never decided); it is kept a day after that.
const Statement kDeleteLoginRequests{
    "gc_delete_login_requests",
    "WITH d AS (DELETE FROM cli_login_requests"
    "            WHERE CASE status WHEN 'redeemed' THEN coalesce(redeemed_at, expires_at)"
    "                              WHEN 'denied' THEN coalesce(decided_at, expires_at)"
    "                              ELSE expires_at END < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// Web sessions end after 14 days unused or 30 days after they began (common/auth/caller.cpp).
const Statement kDeleteSessions{
    "gc_delete_sessions",
    "WITH d AS (DELETE FROM web_sessions"
    "            WHERE expires_at <= now() OR last_used_at <= now() - interval '14 days'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

const Statement kDeleteAccessTokens{
    "gc_delete_access_tokens",
    "WITH d AS (DELETE FROM access_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// A used refresh token is kept until its own expiry (+ 1 day), so presenting it again is still
// recognised as reuse for as long as it could have been valid.
const Statement kDeleteRefreshTokens{
    "gc_delete_refresh_tokens",
    "WITH d AS (DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// The stored answers of commits older than POUCH_IDEMPOTENCY_DAYS ($1): a replay of such an
// operation_id is then applied as new, which the ops' own ids make safe (decisions §5.3, §13).
const Statement kDeleteCommitLog{
    "gc_delete_commit_log",
    "WITH d AS (DELETE FROM commit_log WHERE created_at < now() - $1::int * interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// Bundles of shares that can never be fetched again (revoked, consumed, expired) are dropped;
// the row stays for the owner's list and its state. The trigger of sql/008 gives the bytes back.
const Statement kPurgeShareBundles{
    "gc_purge_share_bundles",
    "WITH d AS (UPDATE shares SET bundle = NULL"
    "            WHERE bundle IS NOT NULL AND (revoked_at IS NOT NULL OR consumed_at IS NOT NULL"
    "                  OR expires_at <= now())"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

const Statement kDeleteConnectTokens{
    "gc_delete_connect_tokens",
    "WITH d AS (DELETE FROM connect_tokens WHERE expires_at < now() - interval '1 day'"
    "           RETURNING 1)"
    " SELECT count(*) AS n FROM d"};

// --- reset-epoch statements ------------------------------------------------------------------

// Locks the pouch as a commit does, so no commit straddles the reset.
const Statement kLockPouch{"pouch_lock",
                           "SELECT epoch, high_water FROM pouches WHERE id = $1 FOR UPDATE"};
// The new epoch's log is the pouch's history renumbered 1..N in its old order: revisions get
// consecutive seqs, heads follow, and one `revision` event per revision replays it. So seqs
// stay gap-free within the epoch, keep ordering artifacts and histories, and the next commit
// continues at N + 1 (a reset never lets old and new seqs interleave).
const Statement kRenumberRevisions{
    "pouch_renumber_revisions",
    "UPDATE revisions r SET seq = n.new_seq"
    "  FROM (SELECT id, row_number() OVER (ORDER BY seq, id) AS new_seq"
    "          FROM revisions WHERE pouch_id = $1) n"
    " WHERE r.pouch_id = $1 AND r.id = n.id"};
const Statement kRenumberHeads{
    "pouch_renumber_heads",
    "UPDATE artifacts a SET head_seq = r.seq FROM revisions r"
    " WHERE a.pouch_id = $1 AND r.pouch_id = $1 AND r.id = a.head_revision_id"};
const Statement kDeleteOldEvents{
    "pouch_delete_old_events",
    "WITH d AS (DELETE FROM events WHERE pouch_id = $1 RETURNING 1) SELECT count(*) AS n FROM d"};
const Statement kReplayHistory{
    "pouch_replay_history",
    "INSERT INTO events (pouch_id, epoch, seq, kind, artifact_id, revision_id, device_id, created_at)"
    " SELECT pouch_id, $2, seq, 'revision', artifact_id, id, device_id, created_at"
    "   FROM revisions WHERE pouch_id = $1"};
const Statement kSetEpoch{
    "pouch_set_epoch",
    "UPDATE pouches SET epoch = $2,"
    "       high_water = (SELECT count(*) FROM revisions WHERE pouch_id = $1)"
    " WHERE id = $1 RETURNING high_water"};
const Statement kDeleteOldCursors{"pouch_delete_old_cursors",
                                  "DELETE FROM device_cursors WHERE pouch_id = $1 AND epoch <> $2"};

// ---------------------------------------------------------------------------------------------

std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

bool connect(pouch::db::Conn& conn, const char* cmd) {
    if (conn.ensure_connected()) return true;
    std::fprintf(stderr, "pouchctl %s: cannot connect to the database: %s\n", cmd,
                 conn.last_error().c_str());
    return false;
}

// Removes a file through the store; false (with a message) on failure.
bool remove_file(const std::string& path) {
    if (pouch::storage::BlobStore::remove_path(path)) return true;
    std::fprintf(stderr, "pouchctl gc: cannot remove %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
}

struct GcStats {
    long long reservations = 0, reservation_bytes = 0;
    long long blobs = 0, blob_bytes = 0, blob_accounts = 0;
    long long temp_files = 0, orphan_files = 0;
    long long replay = 0, login_requests = 0, connect_tokens = 0;
    long long sessions = 0, access_tokens = 0, refresh_tokens = 0, commit_log = 0, shares = 0;
    bool failed = false;
};

// Under the account lock (so no upload places a file meanwhile), removes files of
// the account's blob directory that no blobs row records. `only` limits it to those names (just
// deleted rows); otherwise every unrecorded file older than the grace period goes (left by an
// upload whose transaction failed after the rename, or by a restore).
long long remove_unrecorded(pouch::db::Conn& conn, const pouch::storage::BlobStore& store,
                            const std::string& account_id, const std::vector<std::string>* only,
                            GcStats& st) {
    pouch::db::Transaction tx(conn);
    conn.exec(kLockAccount, {account_id});  // no row (account deleted): nothing is recorded
    std::set<std::string> recorded;
    pouch::db::Result r = conn.exec(kRecordedBlobs, {account_id});
    for (int i = 0; i < r.rows(); ++i) recorded.insert(r.text(i, "id"));
    std::vector<std::string> names = only ? *only : store.files(account_id);
    const std::time_t cutoff = std::time(nullptr) - kGrace;
    long long removed = 0;
    for (const auto& name : names) {
        if (recorded.count(name)) continue;
        if (!only && !store.older_than(account_id, name, cutoff)) continue;
        if (remove_file(store.path(account_id, name)))
            ++removed;
        else
            st.failed = true;
    }
    tx.commit();
    return removed;
}

void gc_blobs(pouch::db::Conn& conn, const pouch::storage::BlobStore& store, GcStats& st) {
    pouch::db::Result accounts = conn.exec(kAccountsWithGarbage);
    for (int a = 0; a < accounts.rows(); ++a) {
        std::string account_id = accounts.text(a, "account_id");
        std::vector<std::string> deleted;
        long long bytes = 0;
        {
            pouch::db::Transaction tx(conn);
            conn.exec(kLockAccount, {account_id});
            pouch::db::Result locked = conn.exec(kLockUnreferenced, {account_id});
            std::vector<std::string> ids;
            for (int i = 0; i < locked.rows(); ++i) ids.push_back(locked.text(i, "id"));
            if (ids.empty()) continue;  // referenced meanwhile
            pouch::db::Result d = conn.exec(kDeleteUnreferenced, {account_id, pouch::db::text_array(ids)});
            for (int i = 0; i < d.rows(); ++i) {
                deleted.push_back(d.text(i, "id"));
                bytes += d.int64(i, "stored_size");
            }
            conn.exec(kSubtractBlobBytes, {account_id, std::to_string(bytes)});
            tx.commit();
        }
        if (deleted.empty()) continue;
        // Row first, then file: a crash in between leaves a stray file, never a row without one.
        remove_unrecorded(conn, store, account_id, &deleted, st);
        st.blobs += static_cast<long long>(deleted.size());
        st.blob_bytes += bytes;
        ++st.blob_accounts;
    }
}

void gc_files(pouch::db::Conn& conn, const pouch::storage::BlobStore& store, GcStats& st) {
    for (const auto& path : store.temp_files_before(std::time(nullptr) - kGrace)) {
        if (remove_file(path))
            ++st.temp_files;
        else
            st.failed = true;
    }
    for (const auto& account_id : store.accounts())
        st.orphan_files += remove_unrecorded(conn, store, account_id, nullptr, st);
}

int gc_usage(FILE* to) {
    std::fprintf(to,
                 "usage: pouchctl gc\n\n"
                 "Deletes what has expired (decisions 5.5). Database from POUCH_DATABASE_URL,\n"
                 "blob directory from POUCH_BLOB_DIR (default /var/lib/pouch/blobs).\n\n"
                 "  - blob reservations past their expiry (their bytes leave usage)\n"
                 "  - blobs older than 24 h that no revision of their account references:\n"
                 "    the row first, then the file; their bytes leave the account's usage\n"
                 "  - files in the blob directory that no blob row records and temporary\n"
                 "    upload files, each older than 24 h\n"
                 "  - DPoP replay entries 5 minutes past expiry; login requests a day after\n"
                 "    they ended; connect tokens a day past expiry\n"
                 "  - web sessions unused for 14 days or begun 30 days ago; access and refresh\n"
                 "    tokens a day past expiry\n"
                 "  - stored commit answers older than POUCH_IDEMPOTENCY_DAYS (default 30)\n"
                 "  - the bundles of expired, consumed and revoked shares (their bytes leave\n"
                 "    usage; the share stays listed with its state)\n\n"
                 "Safe to run at any time and concurrently with the service.\n");
    return to == stdout ? 0 : 2;
}

int reset_usage(FILE* to) {
    std::fprintf(to,
                 "usage: pouchctl pouch reset-epoch POUCH_ID\n\n"
                 "Starts a new event log for the pouch (decisions 5.2): a fresh random epoch\n"
                 "whose log is the pouch's history renumbered 1..N in its old order (one\n"
                 "revision event per revision; high_water N). Old events and device cursors\n"
                 "are deleted; artifacts and revisions stay. Clients get 409 epoch_mismatch\n"
                 "on their next events, cursor or commit call and resync from scratch. Waiting event long-polls are woken through Redis\n"
                 "(POUCH_REDIS_URL) when it is reachable. Database from POUCH_DATABASE_URL.\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

namespace pouchctl {

int cmd_gc(const Args& args) {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return gc_usage(stdout);
    if (!args.empty()) return gc_usage(stderr);
    pouch::storage::BlobStore store(env_or("POUCH_BLOB_DIR", "/var/lib/pouch/blobs"));
    std::string days = env_or("POUCH_IDEMPOTENCY_DAYS", "30");
    if (days.empty() || days.size() > 5 || days.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(days) < 1) {
        std::fprintf(stderr, "pouchctl gc: POUCH_IDEMPOTENCY_DAYS must be a whole number of days >= 1\n");
        return 2;
    }
    int idempotency_days = std::stoi(days);
    pouch::db::Conn conn(env_or("POUCH_DATABASE_URL", "postgresql:///pouch"));
    if (!connect(conn, "gc")) return 1;
    GcStats st;
    try {
        pouch::db::Result r = conn.exec(kReleaseReservations);
        st.reservations = r.int64(0, "n");
        st.reservation_bytes = r.int64(0, "bytes");
        gc_blobs(conn, store, st);
        gc_files(conn, store, st);
        st.replay = conn.exec(kDeleteReplay).int64(0, "n");
        st.login_requests = conn.exec(kDeleteLoginRequests).int64(0, "n");
        st.connect_tokens = conn.exec(kDeleteConnectTokens).int64(0, "n");
        st.sessions = conn.exec(kDeleteSessions).int64(0, "n");
        st.access_tokens = conn.exec(kDeleteAccessTokens).int64(0, "n");
        st.refresh_tokens = conn.exec(kDeleteRefreshTokens).int64(0, "n");
        st.commit_log = conn.exec(kDeleteCommitLog, {std::to_string(idempotency_days)}).int64(0, "n");
        st.shares = conn.exec(kPurgeShareBundles).int64(0, "n");
    } catch (const pouch::Error& e) {
        std::fprintf(stderr, "pouchctl gc: %s\n", e.what());
        return 1;
    }
    std::printf("released %lld expired reservations (%lld bytes)\n", st.reservations,
                st.reservation_bytes);
    std::printf("deleted %lld unreferenced blobs (%lld bytes) in %lld accounts\n", st.blobs,
                st.blob_bytes, st.blob_accounts);
    std::printf("removed %lld stale temporary files and %lld unrecorded blob files\n",
                st.temp_files, st.orphan_files);
    std::printf(
        "deleted %lld expired DPoP replay entries, %lld login requests, %lld connect "
        "tokens\n",
        st.replay, st.login_requests, st.connect_tokens);
    std::printf("deleted %lld web sessions, %lld access tokens, %lld refresh tokens, %lld stored "
                "commit answers older than %d days\n",
                st.sessions, st.access_tokens, st.refresh_tokens, st.commit_log, idempotency_days);
    std::printf("dropped the bundles of %lld expired, consumed or revoked shares\n", st.shares);
    return st.failed ? 1 : 0;
}

int cmd_pouch(const Args& args) {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return reset_usage(stdout);
    if (args.size() != 2 || args[0] != "reset-epoch") return reset_usage(stderr);
    if (args[1] == "--help") return reset_usage(stdout);
    const std::string& pouch_id = args[1];
    if (!pouch::is_uuid(pouch_id)) {
        std::fprintf(stderr, "pouchctl pouch: '%s' is not a pouch id (uuid)\n", pouch_id.c_str());
        return 2;
    }
    pouch::db::Conn conn(env_or("POUCH_DATABASE_URL", "postgresql:///pouch"));
    if (!connect(conn, "pouch")) return 1;
    try {
        pouch::db::Transaction tx(conn);
        pouch::db::Result p = conn.exec(kLockPouch, {pouch_id});
        if (p.rows() == 0) {
            std::fprintf(stderr, "pouchctl pouch: no pouch %s\n", pouch_id.c_str());
            return 1;
        }
        std::string old_epoch = p.text(0, "epoch");
        long long old_high_water = p.int64(0, "high_water");
        std::string epoch = pouch::crypto::uuid_v4();
        long long events = conn.exec(kDeleteOldEvents, {pouch_id}).int64(0, "n");
        conn.exec(kRenumberRevisions, {pouch_id});
        conn.exec(kRenumberHeads, {pouch_id});
        conn.exec(kReplayHistory, {pouch_id, epoch});
        long long high_water = conn.exec(kSetEpoch, {pouch_id, epoch}).int64(0, "high_water");
        conn.exec(kDeleteOldCursors, {pouch_id, epoch});
        tx.commit();
        std::printf(
            "pouch %s: epoch %s -> %s, high_water %lld -> %lld (%lld old events replaced by "
            "the renumbered history)\n",
            pouch_id.c_str(), old_epoch.c_str(), epoch.c_str(), old_high_water, high_water,
            events);
        // Long-polls on the old epoch wake and answer now instead of at their timeout; without
        // Redis they notice at their next database re-check, so this is only a nicety.
        pouch::redis::Client redis(env_or("POUCH_REDIS_URL", "redis://127.0.0.1:6379/0"));
        if (!redis.publish(pouch::wakeup::channel(pouch::wakeup::Topic::events, pouch_id), "1"))
            std::printf("note: Redis unreachable, waiting long-polls were not woken\n");
    } catch (const pouch::Error& e) {
        std::fprintf(stderr, "pouchctl pouch: %s\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace pouchctl
