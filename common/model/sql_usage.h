// sql_usage.h -- the usage reads of usage.cpp over account_stored_bytes() and
// account_reserved_bytes() (sql/008_tenant_bounds.sql), in a header so
// tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/rules/quota.h"

namespace pouch::model::sql {

struct UsageOf {
    std::string account_id;
    static auto db_params() { return std::tuple{db::col("account_id", &UsageOf::account_id)}; }
};

// rules::Usage as a row.
struct UsageRow : rules::Usage {
    static auto db_columns() {
        return std::tuple{db::col("limit_bytes", &rules::Usage::limit_bytes),
                          db::col("stored_bytes", &rules::Usage::stored_bytes),
                          db::col("reserved_bytes", &rules::Usage::reserved_bytes)};
    }
};

inline const db::Query<UsageOf, UsageRow> kLockUsage{
    "model_usage_lock",
    "SELECT p.storage_bytes AS limit_bytes, account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id"
    " WHERE a.id = $1 FOR UPDATE OF a"};

inline const db::Query<UsageOf, UsageRow> kUsage{
    "model_usage",
    "SELECT p.storage_bytes AS limit_bytes, account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = $1"};

}  // namespace pouch::model::sql
