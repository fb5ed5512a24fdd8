// routes.h -- the admin group (decisions §1 roles, §7): plans (list, get, edit = op 2), user
// roles (op 12) and the audit log. Every path needs a web caller whose role is admin; the
// pipeline checks authentication (401), caller kind (403 wrong_caller), role (403 forbidden),
// then the path's {id} (404 unless a uuid: `uuid_after_auth`, so a non-admin learns nothing
// from the shape of an id), then the body. Routes are declared here as data.
#pragma once

#include <climits>
#include <string>

#include "common/api/route.h"
#include "common/paging/paging.h"

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

// pouch_limit and sort are int columns; the others bigint, bounded by decisions §3.
inline const js::Node kPlanEditBody = js::object({
    js::opt("slug",
            js::string().check(is_slug, "1..64 of a-z, 0-9 and '-', not starting with '-'")),
    js::opt("name", js::string().min_chars(1).max_chars(64)),
    js::opt("description", js::string().max_chars(500)),
    js::opt("price_cents", js::integer().min(0).max(js::kMaxSafeInt)),
    js::opt("currency", js::string().check(is_currency, "three upper-case letters")),
    js::opt("interval", js::one_of({"month", "year", "none"})),
    js::opt("pouch_limit", js::integer().min(1).max(INT_MAX)),
    js::opt("storage_bytes", js::integer().min(0).max(js::kMaxSafeInt)),
    js::opt("is_public", js::boolean()),
    js::opt("is_active", js::boolean()),
    js::opt("sort", js::integer().min(INT_MIN).max(INT_MAX)),
    js::opt("reason", js::string().max_chars(500)),
});

inline const js::Node kSetRoleBody = js::object({
    js::req("role", js::one_of({"user", "support", "admin"})),
    js::opt("reason", js::string().max_chars(500)),
});

inline const api::Route kListPlans{.method = "GET",
                                   .pattern = "/v1/admin/plans",
                                   .who = api::Who::admin,
                                   .query = {paging::cursor_param(), paging::limit_param()}};
inline const api::Route kGetPlan{
    .method = "GET", .pattern = "/v1/admin/plans/{id:uuid_after_auth}", .who = api::Who::admin};
inline const api::Route kUpdatePlan{.method = "PUT",
                                    .pattern = "/v1/admin/plans/{id:uuid_after_auth}",
                                    .who = api::Who::admin,
                                    .schema = &kPlanEditBody};
inline const api::Route kSetRole{.method = "POST",
                                 .pattern = "/v1/admin/users/{id:uuid_after_auth}/role",
                                 .who = api::Who::admin,
                                 .schema = &kSetRoleBody};
inline const api::Route kAudit{.method = "GET",
                               .pattern = "/v1/admin/audit",
                               .who = api::Who::admin,
                               .query = {paging::cursor_param(), paging::limit_param()}};

http::Response list_plans(api::Call& call);
http::Response get_plan(api::Call& call);
http::Response update_plan(api::Call& call);
http::Response set_role(api::Call& call);
http::Response list_audit(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kListPlans, list_plans}, {kGetPlan, get_plan}, {kUpdatePlan, update_plan},
    {kSetRole, set_role},     {kAudit, list_audit},
};

}  // namespace pouch::admin
