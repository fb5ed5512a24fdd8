// sql.h -- every statement of the admin group. Plans are selected with POUCH_PLAN_COLUMNS
// into model::Plan (common/model/plan.h), so admin and GET /v1/account render the same object.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/model/plan.h"
#include "handlers/admin/types.h"

namespace pouch::admin::sql {

using db::ById;

// ---- parameters and rows ------------------------------------------------------------------------

struct ListPlansParams {
    std::optional<long long> after_sort;  // the page key (paging.h); both NULL from the start
    std::optional<std::string> after_slug;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("after_sort", &ListPlansParams::after_sort),
                          db::col("after_slug", &ListPlansParams::after_slug),
                          db::col("limit", &ListPlansParams::limit)};
    }
};

// The plan's id, then the edit's fields as $2..$12 (PlanEdit's, named as its JSON is): a
// field the edit does not change is empty (NULL).
struct UpdatePlanParams : PlanEdit {
    std::string id;
    static auto db_params() {
        return std::tuple_cat(
            std::tuple{db::col("id", &UpdatePlanParams::id)},
            std::apply([](const auto&... f) { return std::tuple{db::col(f.name, f.member)...}; },
                       PlanEdit::json_fields()));
    }
};

struct UserRole {
    std::string id, role;
    static auto db_columns() {
        return std::tuple{db::col("id", &UserRole::id), db::col("role", &UserRole::role)};
    }
};

struct SetRoleParams {
    std::string id, role;
    static auto db_params() {
        return std::tuple{db::col("id", &SetRoleParams::id), db::col("role", &SetRoleParams::role)};
    }
};

struct AuditParams {
    std::string actor_user_id, action, target;
    json::Raw before, after;
    std::optional<std::string> reason, request_id;
    static auto db_params() {
        return std::tuple{db::col("actor_user_id", &AuditParams::actor_user_id),
                          db::col("action", &AuditParams::action),
                          db::col("target", &AuditParams::target),
                          db::col("before", &AuditParams::before),
                          db::col("after", &AuditParams::after),
                          db::col("reason", &AuditParams::reason),
                          db::col("request_id", &AuditParams::request_id)};
    }
};

struct ByEmail {
    std::string email;
    static auto db_params() { return std::tuple{db::col("email", &ByEmail::email)}; }
};

struct AuditPageParams {
    long long before_id = 0;  // exclusive
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("before_id", &AuditPageParams::before_id),
                          db::col("limit", &AuditPageParams::limit)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

// One page (decisions §13) in (sort, slug) order after ($1, $2), at most $3 rows; $1 NULL =
// start. Slugs compare bytewise (COLLATE "C"), in the ORDER BY and the keyset alike.
inline const db::Query<ListPlansParams, model::Plan> kListPlans{
    "admin_list_plans",
    "SELECT " POUCH_PLAN_COLUMNS " FROM plans p"
    " WHERE $1::int IS NULL OR p.sort > $1::int"
    "    OR (p.sort = $1::int AND p.slug COLLATE \"C\" > $2::text)"
    " ORDER BY p.sort, p.slug COLLATE \"C\" LIMIT $3"};

inline const db::Query<ById, model::Plan> kGetPlan{
    "admin_get_plan", "SELECT " POUCH_PLAN_COLUMNS " FROM plans p WHERE p.id = $1"};

// The edit reads the current values under the row lock, so before/after in the audit record
// describe exactly the change this transaction made.
inline const db::Query<ById, model::Plan> kLockPlan{
    "admin_lock_plan", "SELECT " POUCH_PLAN_COLUMNS " FROM plans p WHERE p.id = $1 FOR UPDATE"};

// Partial update: a NULL parameter keeps the column (every edited column is NOT NULL, so
// NULL never means "set to NULL"). Parameters in the order of PlanEdit's fields (types.h).
inline const db::Query<UpdatePlanParams, model::Plan> kUpdatePlan{
    "admin_update_plan",
    "UPDATE plans p SET slug = coalesce($2, p.slug), name = coalesce($3, p.name),"
    "       description = coalesce($4, p.description),"
    "       price_cents = coalesce($5::bigint, p.price_cents),"
    "       currency = coalesce($6, p.currency), interval = coalesce($7, p.interval),"
    "       pouch_limit = coalesce($8::int, p.pouch_limit),"
    "       storage_bytes = coalesce($9::bigint, p.storage_bytes),"
    "       is_public = coalesce($10::boolean, p.is_public),"
    "       is_active = coalesce($11::boolean, p.is_active), sort = coalesce($12::int, p.sort),"
    "       updated_at = now()"
    " WHERE p.id = $1 RETURNING " POUCH_PLAN_COLUMNS};

// The target and every admin, locked in id order in one statement (as `pouchctl user role`
// does): two concurrent demotions serialize instead of each seeing the other admin still
// present, and cannot deadlock. A row demoted meanwhile is re-checked and drops out.
inline const db::Query<ById, UserRole> kLockRoleRows{
    "admin_lock_role_rows",
    "SELECT id, role FROM users WHERE id = $1 OR role = 'admin' ORDER BY id FOR UPDATE"};

inline const db::Query<SetRoleParams> kSetRole{"admin_set_role",
                                               "UPDATE users SET role = $2 WHERE id = $1"};

// before/after are JSON objects built by the caller; request_id is nginx's $request_id.
inline const db::Query<AuditParams> kInsertAudit{
    "admin_insert_audit",
    "INSERT INTO audit_log (actor_user_id, action, target, before, after, reason, request_id)"
    " VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)"};

// E-mails are stored lower-case (users_email_key, unique): the caller lower-cases the asked one.
inline const db::Query<ByEmail, AdminUser> kUserByEmail{
    "admin_user_by_email",
    "SELECT id, email, role, iso(created_at) AS created_at FROM users WHERE email = $1"};

// Newest first by id (bigserial, so insertion order); $1 is the last id seen, exclusive.
// One row more than the page is fetched to know whether another page follows. A record
// without an acting user is the operator's (pouchctl). The names a person reads (the actor's
// e-mail, the target user's e-mail or plan's slug) are looked up by primary key per row; a
// target that is not a uuid (no such action yet) names nothing rather than failing the cast.
inline const db::Query<AuditPageParams, AuditEntry> kAuditPage{
    "admin_audit_page",
    "SELECT l.id, coalesce(l.actor_user_id::text, 'operator') AS actor,"
    "       (SELECT u.email FROM users u WHERE u.id = l.actor_user_id) AS actor_email,"
    "       l.action, l.target,"
    "       CASE WHEN l.target !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'"
    "            THEN NULL"
    "            WHEN l.action LIKE 'user.%'"
    "            THEN (SELECT u.email FROM users u WHERE u.id = l.target::uuid)"
    "            WHEN l.action LIKE 'plan.%'"
    "            THEN (SELECT p.slug FROM plans p WHERE p.id = l.target::uuid) END AS target_name,"
    "       l.before, l.after, l.reason, l.request_id, iso(l.at) AS at"
    "  FROM audit_log l WHERE l.id < $1 ORDER BY l.id DESC LIMIT $2"};

}  // namespace pouch::admin::sql
