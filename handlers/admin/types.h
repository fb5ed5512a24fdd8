// types.h -- the admin group's requests, answers and rows (decisions §1 roles, §7), each
// described once: as JSON (json/described.h: the schema, the decoder, the writer) and, where a
// statement returns it, as a row (db/query.h reads a described struct by its JSON names).
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::admin {

namespace js = json::schema;

inline bool is_slug(std::string_view s) {
    if (s.empty() || s.size() > 64 || s[0] == '-') return false;
    for (char ch : s)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')) return false;
    return true;
}

inline bool is_currency(std::string_view s) {
    return s.size() == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' &&
           s[2] >= 'A' && s[2] <= 'Z';
}

// ---- requests --------------------------------------------------------------------------------

// The editable fields of a plan, in the order of rules::kPlanFields (its diff's order, and the
// order of the audit record's before/after, which hold only the changed fields: hence omit()).
// pouch_limit and sort are int columns; the others bigint, bounded by decisions §3.
struct PlanEdit {
    std::optional<std::string> slug, name, description;
    std::optional<long long> price_cents;
    std::optional<std::string> currency, interval;
    std::optional<long long> pouch_limit, storage_bytes;
    std::optional<bool> is_public, is_active;
    std::optional<long long> sort;
    static auto json_fields() {
        return std::tuple{
            json::field(
                "slug", &PlanEdit::slug,
                js::string().check(is_slug, "1..64 of a-z, 0-9 and '-', not starting with '-'"))
                .omit(),
            json::field("name", &PlanEdit::name, js::string().min_chars(1).max_chars(64)).omit(),
            json::field("description", &PlanEdit::description, js::string().max_chars(500)).omit(),
            json::field("price_cents", &PlanEdit::price_cents,
                        js::integer().min(0).max(js::kMaxSafeInt))
                .omit(),
            json::field("currency", &PlanEdit::currency,
                        js::string().check(is_currency, "three upper-case letters"))
                .omit(),
            json::field("interval", &PlanEdit::interval, js::one_of({"month", "year", "none"}))
                .omit(),
            json::field("pouch_limit", &PlanEdit::pouch_limit, js::integer().min(1).max(INT_MAX))
                .omit(),
            json::field("storage_bytes", &PlanEdit::storage_bytes,
                        js::integer().min(0).max(js::kMaxSafeInt))
                .omit(),
            json::field("is_public", &PlanEdit::is_public, js::boolean()).omit(),
            json::field("is_active", &PlanEdit::is_active, js::boolean()).omit(),
            json::field("sort", &PlanEdit::sort, js::integer().min(INT_MIN).max(INT_MAX)).omit(),
        };
    }
};

// PUT /v1/admin/plans/{id}: a partial edit and the reason its audit record keeps.
struct PlanEditRequest : PlanEdit {
    std::optional<std::string> reason;
    static auto json_fields() {
        return std::tuple_cat(PlanEdit::json_fields(),
                              std::tuple{json::field("reason", &PlanEditRequest::reason,
                                                     js::string().max_chars(500))});
    }
};

// POST /v1/admin/users/{id}/role.
struct SetRoleRequest {
    std::string role;
    std::optional<std::string> reason;
    static auto json_fields() {
        return std::tuple{
            json::field("role", &SetRoleRequest::role, js::one_of({"user", "support", "admin"})),
            json::field("reason", &SetRoleRequest::reason, js::string().max_chars(500))};
    }
};

// ---- answers (and the rows they are read from) -------------------------------------------------

struct RoleChange {
    std::string id, role, previous_role;
    static auto json_fields() {
        return std::tuple{json::field("id", &RoleChange::id),
                          json::field("role", &RoleChange::role),
                          json::field("previous_role", &RoleChange::previous_role)};
    }
};

// A role as the audit record's before/after hold it ({"role": ...}, as pouchctl writes it).
struct RoleValue {
    std::string role;
    static auto json_fields() { return std::tuple{json::field("role", &RoleValue::role)}; }
};

// A user as GET /v1/admin/users?email= finds them: what an administrator needs to recognise
// the person and change their role.
struct AdminUser {
    std::string id, email, role, created_at;
    static auto json_fields() {
        return std::tuple{json::field("id", &AdminUser::id), json::field("email", &AdminUser::email),
                          json::field("role", &AdminUser::role),
                          json::field("created_at", &AdminUser::created_at)};
    }
};

// One audit record as GET /v1/admin/audit lists it; actor is the admin's user id, or
// "operator" for pouchctl, actor_email that admin's e-mail (null for the operator or a deleted
// user); target_name names the target for a person: a user target's e-mail, a plan target's
// slug, null when it names nothing (any longer). before/after are JSON objects of the changed
// fields (answers only: their node is never validated against).
struct AuditEntry {
    long long id = 0;
    std::string actor;
    std::optional<std::string> actor_email;
    std::string action, target;
    std::optional<std::string> target_name;
    std::optional<json::Raw> before, after;
    std::optional<std::string> reason, request_id;
    std::string at;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &AuditEntry::id),
            json::field("actor", &AuditEntry::actor),
            json::field("actor_email", &AuditEntry::actor_email),
            json::field("action", &AuditEntry::action),
            json::field("target", &AuditEntry::target),
            json::field("target_name", &AuditEntry::target_name),
            json::field("before", &AuditEntry::before, js::object({}).nullable()),
            json::field("after", &AuditEntry::after, js::object({}).nullable()),
            json::field("reason", &AuditEntry::reason),
            json::field("request_id", &AuditEntry::request_id),
            json::field("at", &AuditEntry::at),
        };
    }
};

}  // namespace pouch::admin
