// sql.h -- every statement of the shares group (decisions §8). A share's state is never
// stored: SHARE_STATE computes it from revoked_at, consumed_at and expires_at when read, and
// the fetch and import UPDATEs repeat the same conditions in their WHERE, so a state change
// and the counter it guards happen in one statement (no read-then-write race).
#pragma once

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/paging/paging.h"
#include "handlers/shares/types.h"

namespace pouch::shares::sql {

using db::ById;

// ---- parameters and rows ------------------------------------------------------------------------

struct OfAccount {
    std::string account_id;
    static auto db_params() { return std::tuple{db::col("account_id", &OfAccount::account_id)}; }
};

struct Count {
    long long n = 0;
    static auto db_columns() { return std::tuple{db::col("n", &Count::n)}; }
};

struct CreateParams {
    std::string id, account_id, pouch_id, created_by_user, label_enc;
    std::optional<std::string> lifetime;  // an interval ('7 days'); NULL = never expires
    std::string bundle;
    long long size = 0;
    bool one_time = false;
    static auto db_params() {
        return std::tuple{db::col("id", &CreateParams::id),
                          db::col("account_id", &CreateParams::account_id),
                          db::col("pouch_id", &CreateParams::pouch_id),
                          db::col("created_by_user", &CreateParams::created_by_user),
                          db::col("label_enc", &CreateParams::label_enc),
                          db::col("lifetime", &CreateParams::lifetime),
                          db::col("bundle", &CreateParams::bundle),
                          db::col("size", &CreateParams::size),
                          db::col("one_time", &CreateParams::one_time)};
    }
};

struct ShareState {
    std::string state;
    static auto db_columns() { return std::tuple{db::col("state", &ShareState::state)}; }
};

struct ListParams {
    std::string pouch_id;
    std::optional<long long> after_us;  // the page key (paging.h); both NULL from the start
    std::optional<std::string> after_id;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &ListParams::pouch_id),
                          db::col("after_us", &ListParams::after_us),
                          db::col("after_id", &ListParams::after_id),
                          db::col("limit", &ListParams::limit)};
    }
};

struct ShareOfAccount {
    std::string id, account_id;
    static auto db_params() {
        return std::tuple{db::col("id", &ShareOfAccount::id),
                          db::col("account_id", &ShareOfAccount::account_id)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

// decisions §8, in this order: revoked, consumed (one_time and fetched), expired, active.
#define SHARE_STATE                                                           \
    "CASE WHEN revoked_at IS NOT NULL THEN 'revoked'"                         \
    "     WHEN one_time AND consumed_at IS NOT NULL THEN 'consumed'"          \
    "     WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired'" \
    "     ELSE 'active' END"

// The Share object of interface.md (Share in types.h reads these names, in this order).
#define SHARE_COLUMNS                                                \
    "id, pouch_id, label_enc, " SHARE_STATE                          \
    " AS state, one_time, size, views, imports,"                     \
    " iso(expires_at) AS expires_at, iso(revoked_at) AS revoked_at," \
    " iso(last_imported_at) AS last_imported_at, iso(created_at) AS created_at"


// Active shares of an account (decisions §13: at most kMaxLiveShares); the account row is
// locked by the caller, so two creates cannot both take the last place.
inline const db::Query<OfAccount, Count> kLiveShares{
    "shares_live_count",
    "SELECT count(*) AS n FROM shares"
    " WHERE account_id = $1 AND revoked_at IS NULL AND consumed_at IS NULL"
    "   AND (expires_at IS NULL OR expires_at > now())"};

// $6 is an interval as text ('7 days') or NULL for `never`; created_at and expires_at come
// from the same now(), so expires_at - created_at is exactly the chosen lifetime. No row back
// means the id is taken (by any account).
inline const db::Query<CreateParams, Share> kCreateShare{
    "shares_create",
    "INSERT INTO shares (id, account_id, pouch_id, created_by_user, label_enc, bundle, size,"
    "                    one_time, expires_at)"
    " VALUES ($1, $2, $3, $4, $5, $7, $8, $9, now() + $6::text::interval)"
    " ON CONFLICT (id) DO NOTHING"
    " RETURNING " SHARE_COLUMNS};

// Public fetch: counts the view and, for a one_time share, consumes it, only while the share
// is active. Concurrent fetches of one row serialise on its row lock and the loser re-checks
// the WHERE against the winner's row, so a one_time share is answered exactly once.
inline const db::Query<ById, FetchedShare> kFetchShare{
    "shares_fetch",
    "UPDATE shares SET views = views + 1,"
    "                  consumed_at = CASE WHEN one_time THEN now() ELSE consumed_at END"
    " WHERE id = $1 AND revoked_at IS NULL AND consumed_at IS NULL"
    "   AND (expires_at IS NULL OR expires_at > now())"
    " RETURNING id, label_enc, bundle, size, iso(expires_at) AS expires_at, one_time"};

// Import: allowed while active, and once for a one_time share (its single import follows the
// fetch that consumed it). Revoked and expired shares refuse.
inline const db::Query<ById, Imported> kImportShare{
    "shares_import",
    "UPDATE shares SET imports = imports + 1, last_imported_at = now()"
    " WHERE id = $1 AND revoked_at IS NULL"
    "   AND NOT (one_time AND imports > 0)"
    "   AND (consumed_at IS NOT NULL OR expires_at IS NULL OR expires_at > now())"
    " RETURNING id, imports, iso(last_imported_at) AS last_imported_at"};

// Tells 404 (no such share) from 410 (exists but not active, and which state) after an UPDATE
// matched nothing.
inline const db::Query<ById, ShareState> kShareExists{
    "shares_exists", "SELECT " SHARE_STATE " AS state FROM shares WHERE id = $1"};

// Newest first, keyset on (created_at, id). The cursor carries created_at in microseconds
// since the epoch (exact, unlike the millisecond iso() text) and the id; $2/$3 NULL = start.
// $4 is limit + 1, so one extra row tells whether another page follows.
inline const db::Query<ListParams, ShareRow> kListShares{
    "shares_list",
    "SELECT " SHARE_COLUMNS ", " POUCH_PAGING_MICROS("created_at") " AS created_us"
    "  FROM shares"
    " WHERE pouch_id = $1"
    "   AND ($2::bigint IS NULL"
    "        OR (created_at, id) < (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY created_at DESC, id DESC LIMIT $4"};

// Idempotent: a second revoke keeps the first revoked_at and answers the same object. $2 is
// the caller's account: it revokes the share links of any pouch where it may make them
// (role write or admin, docs/SHARING.md §7); the owner's row is one of those.
inline const db::Query<ShareOfAccount, Share> kRevokeShare{
    "shares_revoke",
    "UPDATE shares SET revoked_at = COALESCE(revoked_at, now())"
    " WHERE id = $1 AND EXISTS (SELECT 1 FROM pouch_access a WHERE a.pouch_id = shares.pouch_id"
    "   AND a.account_id = $2 AND a.state = 'active' AND a.role IN ('write', 'admin'))"
    " RETURNING " SHARE_COLUMNS};

}  // namespace pouch::shares::sql
