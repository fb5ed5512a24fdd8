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
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "common/crypto/random.h"
#include "common/db/pool.h"
#include "common/redis/client.h"
#include "common/storage/blob_store.h"
#include "common/types/uuid.h"
#include "common/wakeup/wakeup.h"
#include "tools/pouchctl/commands.h"
#include "tools/pouchctl/sql_gc.h"

using namespace pouchctl::sql;

namespace {

constexpr time_t kGrace = 24 * 3600;  // unreferenced blobs and stray files live this long

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

// Removes a temporary upload file; false (with a message) on failure.
bool remove_file(const std::string& path) {
    if (pouch::storage::BlobStore::remove_path(path)) return true;
    std::fprintf(stderr, "pouchctl gc: cannot remove %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
}

struct GcStats {
    long long reservations = 0, reservation_bytes = 0;
    long long blobs = 0, blob_bytes = 0, blob_accounts = 0;
    long long temp_files = 0, orphan_files = 0, listed = 0, pages = 0, reserved_objects = 0;
    long long replay = 0, login_requests = 0, connect_tokens = 0;
    long long sessions = 0, access_tokens = 0, refresh_tokens = 0, commit_log = 0, shares = 0;
    bool failed = false;
};

// Under the account lock (so no upload records an object meanwhile), removes those of `names`
// that no blobs row of the account records and no reservation row names: just deleted rows, or
// objects a listing found older than the grace period (left by an upload whose transaction
// failed after the object was stored, or by a restore).
//
// Why a reserved key is left alone: an upload PUTs its object with no lock held, then records
// it under this lock without asking the store again (no HEAD) when its reservation row is the
// one it read before the PUT (blobs.cpp). That row existed all along, so it was there when gc
// held the lock in between, and gc kept the object; a reservation renewed or made anew
// meanwhile makes the upload ask the store again. The object's age does not settle it: an
// upload may PUT anew over an old object of the same key after gc's listing read its age. A
// key left here is collected by a later run, once its reservation is gone (used, or released
// after its expiry). Objects kept this way are counted in `reserved`.
long long remove_unrecorded(pouch::db::Conn& conn, const pouch::storage::BlobStore& store,
                            const std::string& account_id, const std::vector<std::string>& names,
                            GcStats& st) {
    pouch::db::Transaction tx(conn);
    conn.rows(kLockAccount, {.account_id = account_id});  // no row (deleted): nothing recorded
    std::set<std::string> recorded, reserved;
    for (const Id& b : conn.rows(kRecordedBlobs, {.account_id = account_id})) recorded.insert(b.id);
    for (const Id& r : conn.rows(kReservedBlobs, {.account_id = account_id})) reserved.insert(r.id);
    long long removed = 0;
    for (const auto& name : names) {
        if (recorded.count(name)) continue;
        if (reserved.count(name)) {
            ++st.reserved_objects;
            continue;
        }
        try {
            store.remove(account_id, name);
            ++removed;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "pouchctl gc: cannot remove %s/%s from the %s: %s\n",
                         account_id.c_str(), name.c_str(), store.describe().c_str(), e.what());
            st.failed = true;
        }
    }
    tx.commit();
    return removed;
}

void gc_blobs(pouch::db::Conn& conn, const pouch::storage::BlobStore& store, GcStats& st) {
    for (const AccountId& a : conn.rows(kAccountsWithGarbage, {})) {
        const std::string& account_id = a.account_id;
        std::vector<std::string> deleted;
        long long bytes = 0;
        {
            pouch::db::Transaction tx(conn);
            conn.rows(kLockAccount, {.account_id = account_id});
            std::vector<std::string> ids;
            for (const Id& b : conn.rows(kLockUnreferenced, {.account_id = account_id}))
                ids.push_back(b.id);
            if (ids.empty()) continue;  // referenced meanwhile
            for (const DeletedBlob& d :
                 conn.rows(kDeleteUnreferenced, {.account_id = account_id, .ids = ids})) {
                deleted.push_back(d.id);
                bytes += d.stored_size;
            }
            conn.run(kSubtractBlobBytes, {.account_id = account_id, .bytes = bytes});
            tx.commit();
        }
        if (deleted.empty()) continue;
        // Row first, then object: a crash in between leaves a stray object, never a row
        // without one.
        remove_unrecorded(conn, store, account_id, deleted, st);
        st.blobs += static_cast<long long>(deleted.size());
        st.blob_bytes += bytes;
        ++st.blob_accounts;
    }
}

// Stale temporary upload files of this host, then the store's unrecorded objects, a listing
// page at a time (one lock per account of the page).
void gc_files(pouch::db::Conn& conn, const pouch::storage::BlobStore& store, GcStats& st) {
    const std::time_t cutoff = std::time(nullptr) - kGrace;
    for (const auto& path : store.temp_files_before(cutoff)) {
        if (remove_file(path))
            ++st.temp_files;
        else
            st.failed = true;
    }
    store.list([&](const std::vector<pouch::storage::StoredObject>& page) {
        ++st.pages;
        st.listed += static_cast<long long>(page.size());
        std::map<std::string, std::vector<std::string>> old;
        for (const auto& o : page)
            if (o.modified < cutoff) old[o.account_id].push_back(o.blob_id);
        for (const auto& [account_id, names] : old)
            st.orphan_files += remove_unrecorded(conn, store, account_id, names, st);
    });
}

int gc_usage(FILE* to) {
    std::fprintf(to,
                 "usage: pouchctl gc\n\n"
                 "Deletes what has expired (decisions 5.5). Database from POUCH_DATABASE_URL,\n"
                 "blobs from POUCH_BLOB_STORE (s3://BUCKET with POUCH_S3_*) or the directory\n"
                 "POUCH_BLOB_DIR (default /var/lib/pouch/blobs).\n\n"
                 "  - blob reservations past their expiry (their bytes leave usage)\n"
                 "  - blobs older than 24 h that no revision of their account references:\n"
                 "    the row first, then the object; their bytes leave the account's usage\n"
                 "  - objects in the blob store that no blob row records and no reservation\n"
                 "    names (listed a page at a time), and this host's temporary upload\n"
                 "    files, each older than 24 h\n"
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
                 "on their next events, cursor or commit call and resync from scratch. Waiting "
                 "event long-polls are woken through Redis\n"
                 "(POUCH_REDIS_URL) when it is reachable. Database from POUCH_DATABASE_URL.\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

namespace pouchctl {

int cmd_gc(const Args& args) {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return gc_usage(stdout);
    if (!args.empty()) return gc_usage(stderr);
    std::unique_ptr<pouch::storage::BlobStore> store_owner;
    try {
        store_owner = pouch::storage::open_blob_store(pouch::config::Config::from_env());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl gc: bad configuration: %s\n", e.what());
        return 2;
    }
    const pouch::storage::BlobStore& store = *store_owner;
    std::string days = env_or("POUCH_IDEMPOTENCY_DAYS", "30");
    if (days.empty() || days.size() > 5 ||
        days.find_first_not_of("0123456789") != std::string::npos || std::stoi(days) < 1) {
        std::fprintf(stderr,
                     "pouchctl gc: POUCH_IDEMPOTENCY_DAYS must be a whole number of days >= 1\n");
        return 2;
    }
    int idempotency_days = std::stoi(days);
    pouch::db::Conn conn(env_or("POUCH_DATABASE_URL", "postgresql:///pouch"));
    if (!connect(conn, "gc")) return 1;
    GcStats st;
    try {
        Released r = conn.one(kReleaseReservations, {});
        st.reservations = r.n;
        st.reservation_bytes = r.bytes;
        gc_blobs(conn, store, st);
        gc_files(conn, store, st);
        st.replay = conn.one(kDeleteReplay, {}).n;
        st.login_requests = conn.one(kDeleteLoginRequests, {}).n;
        st.connect_tokens = conn.one(kDeleteConnectTokens, {}).n;
        st.sessions = conn.one(kDeleteSessions, {}).n;
        st.access_tokens = conn.one(kDeleteAccessTokens, {}).n;
        st.refresh_tokens = conn.one(kDeleteRefreshTokens, {}).n;
        st.commit_log = conn.one(kDeleteCommitLog, {.days = idempotency_days}).n;
        st.shares = conn.one(kPurgeShareBundles, {}).n;
    } catch (const pouch::Error& e) {
        std::fprintf(stderr, "pouchctl gc: %s\n", e.what());
        return 1;
    } catch (const std::runtime_error& e) {  // the blob store (storage::Unavailable among them)
        std::fprintf(stderr, "pouchctl gc: the %s failed: %s\n", store.describe().c_str(),
                     e.what());
        return 1;
    }
    std::printf("released %lld expired reservations (%lld bytes)\n", st.reservations,
                st.reservation_bytes);
    std::printf("deleted %lld unreferenced blobs (%lld bytes) in %lld accounts\n", st.blobs,
                st.blob_bytes, st.blob_accounts);
    std::printf(
        "removed %lld stale temporary files and %lld unrecorded blob objects (of %lld "
        "listed in %lld pages)\n",
        st.temp_files, st.orphan_files, st.listed, st.pages);
    std::printf(
        "kept %lld unrecorded blob objects whose blob is reserved (an upload may be "
        "recording them)\n",
        st.reserved_objects);
    std::printf(
        "deleted %lld expired DPoP replay entries, %lld login requests, %lld connect "
        "tokens\n",
        st.replay, st.login_requests, st.connect_tokens);
    std::printf(
        "deleted %lld web sessions, %lld access tokens, %lld refresh tokens, %lld stored "
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
        auto old = conn.maybe_one(kLockPouch, {.pouch_id = pouch_id});
        if (!old) {
            std::fprintf(stderr, "pouchctl pouch: no pouch %s\n", pouch_id.c_str());
            return 1;
        }
        const std::string& old_epoch = old->epoch;
        long long old_high_water = old->high_water;
        const PouchEpoch next{.pouch_id = pouch_id, .epoch = pouch::crypto::uuid_v4()};
        const std::string& epoch = next.epoch;
        long long events = conn.one(kDeleteOldEvents, {.pouch_id = pouch_id}).n;
        conn.run(kRenumberRevisions, {.pouch_id = pouch_id});
        conn.run(kRenumberHeads, {.pouch_id = pouch_id});
        conn.run(kReplayHistory, next);
        long long high_water = conn.one(kSetEpoch, next).high_water;
        conn.run(kDeleteOldCursors, next);
        tx.commit();
        std::printf(
            "pouch %s: epoch %s -> %s, high_water %lld -> %lld (%lld old events replaced by "
            "the renumbered history)\n",
            pouch_id.c_str(), old_epoch.c_str(), epoch.c_str(), old_high_water, high_water, events);
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
