// sql_user_role.h -- the statements of `pouchctl user role` (user_role.cpp), in a header so
// tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouchctl::sql {

namespace db = pouch::db;

struct ByEmail {
    std::string email;
    static auto db_params() { return std::tuple{db::col("email", &ByEmail::email)}; }
};

struct UserRow {
    std::string id, email, role;
    static auto db_columns() {
        return std::tuple{db::col("id", &UserRow::id), db::col("email", &UserRow::email),
                          db::col("role", &UserRow::role)};
    }
};

struct SetRoleParams {
    std::string id, role;
    static auto db_params() {
        return std::tuple{db::col("id", &SetRoleParams::id), db::col("role", &SetRoleParams::role)};
    }
};

struct AuditParams {
    std::string target, before_role, after_role;
    std::optional<std::string> reason;
    static auto db_params() {
        return std::tuple{db::col("target", &AuditParams::target),
                          db::col("before_role", &AuditParams::before_role),
                          db::col("after_role", &AuditParams::after_role),
                          db::col("reason", &AuditParams::reason)};
    }
};

// The target and every admin, locked in id order in one statement: two concurrent demotions
// then serialize instead of each seeing the other admin still present, and cannot deadlock.
inline const db::Query<ByEmail, UserRow> kLockUsers{
    "user_role_lock",
    "SELECT id, email, role FROM users WHERE email = $1 OR role = 'admin' ORDER BY id FOR UPDATE"};

inline const db::Query<SetRoleParams> kSetRole{"user_role_set",
                                               "UPDATE users SET role = $2 WHERE id = $1"};

// actor_user_id NULL marks the operator; before/after as op 12 writes them ({"role": ...}).
inline const db::Query<AuditParams> kAudit{
    "user_role_audit",
    "INSERT INTO audit_log (actor_user_id, action, target, before, after, reason, request_id) "
    "VALUES (NULL, 'user.role', $1, jsonb_build_object('role', $2::text), "
    "jsonb_build_object('role', $3::text), $4, NULL)"};

}  // namespace pouchctl::sql
