// pouch.h -- the pouch row every path under /v1/pouches/{pouchId} starts from, as the request
// pipeline loads it once for a route's pouch scope (common/api/route.h): a pouch the caller's
// account has no active access to (pouch_access, docs/SHARING.md §9) is not found (decisions
// §5.1: existence is never revealed). The row names the owner (who pays, SHARING.md §8) and
// the caller's role.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/types/error.h"

namespace pouch::model {

using db::PouchOfAccount;

// An account's role in a pouch (SHARING.md §7), in rising order.
enum class Role { read, write, admin };
std::string_view role_name(Role r);
// The role named `name` ("read", "write", "admin"); nullopt for anything else.
std::optional<Role> parse_role(std::string_view name);

struct PouchRow {
    std::string id;
    // The owner: the account the pouch belongs to and whose plan holds everything stored
    // under it, whoever stores it (SHARING.md §8). Usage, blobs and quota key on it.
    std::string account_id;
    std::string epoch;
    long long key_gen = 0;
    long long high_water = 0;
    long long file_changes = 0;
    long long stored_bytes = 0;
    std::string created_at;
    std::string role;     // the caller's account's role
    bool shared = false;  // the pouch has an access list
    static auto db_columns() {
        return std::tuple{db::col("id", &PouchRow::id),
                          db::col("account_id", &PouchRow::account_id),
                          db::col("epoch", &PouchRow::epoch),
                          db::col("key_gen", &PouchRow::key_gen),
                          db::col("high_water", &PouchRow::high_water),
                          db::col("file_changes", &PouchRow::file_changes),
                          db::col("stored_bytes", &PouchRow::stored_bytes),
                          db::col("created_at", &PouchRow::created_at),
                          db::col("role", &PouchRow::role),
                          db::col("shared", &PouchRow::shared)};
    }
    const std::string& owner() const { return account_id; }
    bool may(Role need) const;  // the caller's role is `need` or above
};

namespace sql {

#define POUCH_ROW_COLUMNS                                                                   \
    "p.id, p.account_id, p.epoch, p.key_gen, p.high_water, p.file_changes, p.stored_bytes," \
    " iso(p.created_at) AS created_at, a.role,"                                             \
    " EXISTS (SELECT 1 FROM access_statements s WHERE s.pouch_id = p.id) AS shared"
// POUCH, ACCOUNT: SQL expressions of the pouch id and the caller's account (active in
// pouch_access). common/auth's web session lookup joins the same row (sql_caller.h).
#define POUCH_ROW_FROM(POUCH, ACCOUNT)                    \
    " FROM pouches p JOIN pouch_access a"                 \
    "   ON a.pouch_id = p.id AND a.account_id = " ACCOUNT \
    " AND a.state = 'active'"                             \
    " WHERE p.id = " POUCH

// $1 pouch id, $2 the caller's account. The commit locks the row (and so does make bench's
// commit baseline, tools/loadgen/commit_sql.cpp).
inline const db::Query<PouchOfAccount, PouchRow> kPouch{
    "model_pouch", "SELECT " POUCH_ROW_COLUMNS POUCH_ROW_FROM("$1", "$2")};
inline const db::Query<PouchOfAccount, PouchRow> kPouchForUpdate{
    "model_pouch_for_update",
    "SELECT " POUCH_ROW_COLUMNS POUCH_ROW_FROM("$1", "$2") " FOR UPDATE OF p"};

}  // namespace sql

// 403 insufficient_role with details {role, required}: the caller's role in `row` is below
// `required`.
Error insufficient_role(const PouchRow& row, Role required);

// The pouch `pouch_id` as `account_id` reaches it, or nullopt when it does not exist or the
// account has no active access to it. `for_update` locks the pouch row until the transaction
// on `conn` ends (commits serialise on it).
std::optional<PouchRow> find_pouch(db::Conn& conn, const std::string& pouch_id,
                                   const std::string& account_id, bool for_update);

}  // namespace pouch::model
