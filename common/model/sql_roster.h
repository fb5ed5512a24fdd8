// sql_roster.h -- the statements that append to an account's roster (roster.cpp), in a header so
// tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::model::sql {

struct RosterOfAccount {
    std::string account_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &RosterOfAccount::account_id)};
    }
};

struct RosterStatement {
    std::string account_id, statement, signature;
    static auto db_params() {
        return std::tuple{db::col("account_id", &RosterStatement::account_id),
                          db::col("statement", &RosterStatement::statement),
                          db::col("signature", &RosterStatement::signature)};
    }
};

struct Locked {
    bool locked = false;
    static auto db_columns() { return std::tuple{db::col("locked", &Locked::locked)}; }
};

struct RosterIndex {
    long long idx = 0;
    static auto db_columns() { return std::tuple{db::col("idx", &RosterIndex::idx)}; }
};

struct NextIndex {
    long long next = 0;
    static auto db_columns() { return std::tuple{db::col("next", &NextIndex::next)}; }
};

// Transaction-scoped: released at COMMIT or ROLLBACK.
inline const db::Query<RosterOfAccount, Locked> kRosterLock{
    "model_roster_lock",
    "SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended('roster:' || $1::text, 0))"};

// An identical statement already present appends nothing (no row back).
inline const db::Query<RosterStatement, RosterIndex> kAppendRoster{
    "model_append_roster",
    "INSERT INTO roster_entries (account_id, idx, statement, signature)"
    " SELECT $1, coalesce((SELECT max(idx) + 1 FROM roster_entries WHERE account_id = $1), 0),"
    "        $2, $3"
    " WHERE NOT EXISTS (SELECT 1 FROM roster_entries WHERE account_id = $1 AND statement = $2)"
    " RETURNING idx"};

inline const db::Query<RosterOfAccount, NextIndex> kNextRosterIndex{
    "model_next_roster_index",
    "SELECT coalesce(max(idx) + 1, 0) AS next FROM roster_entries WHERE account_id = $1"};

}  // namespace pouch::model::sql
