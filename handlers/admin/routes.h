// routes.h -- the admin group (decisions §1 roles, §7): plans (list, get, edit = op 2), user
// roles (op 12), a user found by e-mail, and the audit log. Every path needs a web caller whose
// role is admin; the pipeline checks authentication (401), caller kind (403 wrong_caller), role
// (403 forbidden), then the path's {id} (404 unless a uuid: `uuid_after_auth`, so a non-admin
// learns nothing from the shape of an id), then the body. Routes are declared here as data.
#pragma once

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/model/plan.h"
#include "common/paging/paging.h"
#include "handlers/admin/types.h"

namespace pouch::admin {

inline const api::Route kListPlans{.method = "GET",
                                   .pattern = "/v1/admin/plans",
                                   .who = api::Who::admin,
                                   .query = {paging::cursor_param(), paging::limit_param()}};
inline const api::Route kGetPlan{
    .method = "GET", .pattern = "/v1/admin/plans/{id:uuid_after_auth}", .who = api::Who::admin};
inline const api::Route kUpdatePlan{.method = "PUT",
                                    .pattern = "/v1/admin/plans/{id:uuid_after_auth}",
                                    .who = api::Who::admin,
                                    .schema = api::schema<PlanEditRequest>()};
inline const api::Route kSetRole{.method = "POST",
                                 .pattern = "/v1/admin/users/{id:uuid_after_auth}/role",
                                 .who = api::Who::admin,
                                 .schema = api::schema<SetRoleRequest>()};
// An exact, case-insensitive e-mail lookup (no prefix search, no listing of all users); a read,
// so not audited, like every GET here.
inline const api::Route kFindUser{.method = "GET",
                                  .pattern = "/v1/admin/users",
                                  .who = api::Who::admin,
                                  .query = {http::required(http::query_text("email", 254))}};
inline const api::Route kAudit{.method = "GET",
                               .pattern = "/v1/admin/audit",
                               .who = api::Who::admin,
                               .query = {paging::cursor_param(), paging::limit_param()}};

http::Response list_plans(api::Call& call);  // a page
model::Plan get_plan(api::Call& call);
model::Plan update_plan(api::Call& call, const PlanEditRequest& body);
RoleChange set_role(api::Call& call, const SetRoleRequest& body);
AdminUser find_user(api::Call& call);
http::Response list_audit(api::Call& call);  // a page

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kListPlans, list_plans},
    {kGetPlan, api::typed(get_plan)},
    {kUpdatePlan, api::typed(update_plan)},
    {kSetRole, api::typed(set_role)},
    {kFindUser, api::typed(find_user)},
    {kAudit, list_audit},
};

}  // namespace pouch::admin
