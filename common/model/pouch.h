// pouch.h -- the pouch row every path under /v1/pouches/{pouchId} starts from, as the request
// pipeline loads it once for a route's pouch scope (common/api/route.h): a pouch of another
// account is not found (decisions §5.1: existence is never revealed).
#pragma once

#include <optional>
#include <string>

#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"

namespace pouch::model {

using db::PouchOfAccount;

struct PouchRow {
    std::string id;
    std::string account_id;
    std::string epoch;
    long long key_gen = 0;
    long long high_water = 0;
    long long file_changes = 0;
    long long stored_bytes = 0;
    std::string created_at;
    static auto db_columns() {
        return std::tuple{db::col("id", &PouchRow::id),
                          db::col("account_id", &PouchRow::account_id),
                          db::col("epoch", &PouchRow::epoch),
                          db::col("key_gen", &PouchRow::key_gen),
                          db::col("high_water", &PouchRow::high_water),
                          db::col("file_changes", &PouchRow::file_changes),
                          db::col("stored_bytes", &PouchRow::stored_bytes),
                          db::col("created_at", &PouchRow::created_at)};
    }
};

namespace sql {

#define POUCH_ROW_COLUMNS                                                     \
    "id, account_id, epoch, key_gen, high_water, file_changes, stored_bytes," \
    " iso(created_at) AS created_at"

// $1 pouch id, $2 the caller's account. The commit locks the row (and so does make bench's
// commit baseline, tools/loadgen/commit_sql.cpp).
inline const db::Query<PouchOfAccount, PouchRow> kPouch{"model_pouch", "SELECT " POUCH_ROW_COLUMNS
                                                 " FROM pouches"
                                                 " WHERE id = $1 AND account_id = $2"};
inline const db::Query<PouchOfAccount, PouchRow> kPouchForUpdate{"model_pouch_for_update",
                                           "SELECT " POUCH_ROW_COLUMNS
                                           " FROM pouches"
                                           " WHERE id = $1 AND account_id = $2 FOR UPDATE"};

}  // namespace sql

// The pouch `pouch_id` of `account_id`, or nullopt when it does not exist or is another
// account's. `for_update` locks the row until the transaction on `conn` ends (commits
// serialise on it).
std::optional<PouchRow> find_pouch(db::Conn& conn, const std::string& pouch_id,
                                   const std::string& account_id, bool for_update);

}  // namespace pouch::model
