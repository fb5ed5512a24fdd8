// sql_pouches.h -- statements of the pouch and key-envelope endpoints of the sync group, typed
// by their parameter and row structs (common/db/query.h). The pouch row itself is the
// pipeline's (common/model/pouch.h).
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/pool.h"
#include "common/db/query.h"
#include "common/paging/paging.h"
#include "handlers/sync/types.h"

namespace pouch::sync::sql {

// ---- parameters and rows ------------------------------------------------------------------------

struct ListPouchesParams {
    std::string account_id;
    std::optional<long long> after_us;  // the page key (paging.h); both NULL from the start
    std::optional<std::string> after_id;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &ListPouchesParams::account_id),
                          db::col("after_us", &ListPouchesParams::after_us),
                          db::col("after_id", &ListPouchesParams::after_id),
                          db::col("limit", &ListPouchesParams::limit)};
    }
};

// A listed pouch and its page key (microseconds of created_at).
struct PouchListRow : Pouch {
    long long created_us = 0;
    static auto db_columns() {
        return std::tuple_cat(Pouch::json_fields(),
                              std::tuple{db::col("created_us", &PouchListRow::created_us)});
    }
};

struct AccountOfPlan {
    std::string account_id;
    static auto db_params() { return std::tuple{db::col("account_id", &AccountOfPlan::account_id)}; }
};

struct PouchSlots {
    long long pouch_limit = 0, pouches = 0;
    static auto db_columns() {
        return std::tuple{db::col("pouch_limit", &PouchSlots::pouch_limit),
                          db::col("pouches", &PouchSlots::pouches)};
    }
};

struct InsertPouch {
    std::string id, account_id, epoch;
    long long key_gen = 0;
    static auto db_params() {
        return std::tuple{db::col("id", &InsertPouch::id),
                          db::col("account_id", &InsertPouch::account_id),
                          db::col("epoch", &InsertPouch::epoch),
                          db::col("key_gen", &InsertPouch::key_gen)};
    }
};

struct ListEnvelopesParams {
    std::string pouch_id;
    std::optional<std::string> member_id;  // filters, when set
    std::optional<long long> key_gen;
    std::optional<long long> after_gen;  // the page key; both NULL from the start
    std::optional<std::string> after_member;
    long long limit = 0, budget = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &ListEnvelopesParams::pouch_id),
                          db::col("member_id", &ListEnvelopesParams::member_id),
                          db::col("key_gen", &ListEnvelopesParams::key_gen),
                          db::col("after_gen", &ListEnvelopesParams::after_gen),
                          db::col("after_member", &ListEnvelopesParams::after_member),
                          db::col("limit", &ListEnvelopesParams::limit),
                          db::col("budget", &ListEnvelopesParams::budget)};
    }
};

struct EnvelopeRow : KeyEnvelope {
    long long bytes_before = 0, fetched = 0;  // the page's byte cut (paging::fetched)
    static auto db_columns() {
        return std::tuple_cat(KeyEnvelope::json_fields(),
                              std::tuple{db::col("bytes_before", &EnvelopeRow::bytes_before),
                                         db::col("fetched", &EnvelopeRow::fetched)});
    }
};

struct PouchParam {
    std::string pouch_id;
    static auto db_params() { return std::tuple{db::col("pouch_id", &PouchParam::pouch_id)}; }
};

struct RotationState {
    long long key_gen = 0;
    bool pending = false;
    static auto db_columns() {
        return std::tuple{db::col("key_gen", &RotationState::key_gen),
                          db::col("pending", &RotationState::pending)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

#define POUCH_JSON_COLUMNS \
    "id, epoch, key_gen, high_water, file_changes, iso(created_at) AS created_at"

// One page (decisions §13) of the pouches the account reaches (its own and those shared with
// it): after ($2 created µs, $3 id), at most $4 rows; $2 NULL = start.
inline const db::Query<ListPouchesParams, PouchListRow> kListPouches{
    "sync_list_pouches",
    "SELECT p.id, p.epoch, p.key_gen, p.high_water, p.file_changes,"
    "       iso(p.created_at) AS created_at, a.role,"
    "       p.account_id AS owner_account_id,"
    "       EXISTS (SELECT 1 FROM access_statements s WHERE s.pouch_id = p.id) AS shared,"
    "       " POUCH_PAGING_MICROS("p.created_at") " AS created_us"
    "  FROM pouch_access a JOIN pouches p ON p.id = a.pouch_id"
    " WHERE a.account_id = $1 AND a.state = 'active'"
    "   AND ($2::bigint IS NULL OR (p.created_at, p.id) > (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY p.created_at, p.id LIMIT $4"};

inline const db::Query<AccountOfPlan, PouchSlots> kLockAccountPlan{
    "sync_lock_account_plan",
    "SELECT p.pouch_limit, (SELECT count(*) FROM pouches WHERE account_id = a.id) AS pouches"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id"
    " WHERE a.id = $1 FOR UPDATE OF a"};

inline const db::Query<InsertPouch, Pouch> kInsertPouch{
    "sync_insert_pouch",
    "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ($1, $2, $3, $4)"
    " RETURNING " POUCH_JSON_COLUMNS ", 'admin' AS role, account_id AS owner_account_id,"
    " false AS shared"};

// One page (decisions §13) in (key_gen, member_id) order after ($4, $5), at most $6 rows;
// $4 NULL = start. $2/$3 filter by member and key_gen when not NULL. Rows come only while the
// stored bytes of the rows before them stay within $7 (the page budget), so a page never
// reads 1,000 envelopes of 6 KB; `fetched` counts the rows before that cut.
inline const db::Query<ListEnvelopesParams, EnvelopeRow> kListEnvelopes{
    "sync_list_envelopes",
    "SELECT * FROM ("
    "  SELECT pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature,"
    "         iso(created_at) AS created_at,"
    "         (coalesce(sum(envelope_bytes(hpke_enc, ciphertext, signature)) OVER w, 0)"
    "           - envelope_bytes(hpke_enc, ciphertext, signature))::bigint AS bytes_before,"
    "         count(*) OVER () AS fetched"
    "    FROM (SELECT * FROM key_envelopes"
    "           WHERE pouch_id = $1 AND ($2::uuid IS NULL OR member_id = $2)"
    "             AND ($3::bigint IS NULL OR key_gen = $3)"
    "             AND ($4::bigint IS NULL OR (key_gen, member_id) > ($4::bigint, $5::uuid))"
    "           ORDER BY key_gen, member_id LIMIT $6) k"
    "  WINDOW w AS (ORDER BY key_gen, member_id ROWS UNBOUNDED PRECEDING)) page"
    " WHERE bytes_before <= $7::bigint ORDER BY key_gen, member_id"};

// decisions §5.6, SHARING.md §7: pending while the last access statement's key_gen is above
// the pouch's (a `leave` waits for its rotation) or an active member of an account with
// active access lacks an envelope at the current key_gen.
inline const db::Query<PouchParam, RotationState> kPouchRotationPending{
    "sync_pouch_rotation_pending",
    "SELECT p.key_gen,"
    "       coalesce((SELECT s.key_gen FROM access_statements s WHERE s.pouch_id = p.id"
    "                  ORDER BY s.idx DESC LIMIT 1), 0) > p.key_gen"
    "    OR EXISTS ("
    "  SELECT 1 FROM pouch_access a JOIN members m ON m.account_id = a.account_id"
    "   WHERE a.pouch_id = p.id AND a.state = 'active' AND m.removed_at IS NULL"
    "     AND NOT EXISTS (SELECT 1 FROM key_envelopes k WHERE k.pouch_id = p.id"
    "                        AND k.member_id = m.id AND k.key_gen = p.key_gen)) AS pending"
    "  FROM pouches p WHERE p.id = $1"};

}  // namespace pouch::sync::sql
