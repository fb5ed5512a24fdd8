// routes.h -- the admin group (decisions §1 roles, §7): plans (list, get, edit = op 2), user
// roles (op 12) and the audit log. Every path needs a web caller whose role is admin.
#pragma once

#include <string>

#include "common/auth/caller.h"
#include "common/http/server.h"

namespace pouch::admin {

Response list_plans(Request& req, Services& s);   // GET  /v1/admin/plans
Response get_plan(Request& req, Services& s);     // GET  /v1/admin/plans/{id}
Response update_plan(Request& req, Services& s);  // PUT  /v1/admin/plans/{id}
Response set_role(Request& req, Services& s);     // POST /v1/admin/users/{id}/role
Response list_audit(Request& req, Services& s);   // GET  /v1/admin/audit

// The gate of every admin path, in this order: authenticate (401), caller kind (403
// wrong_caller for a CLI device), role (403 forbidden unless admin).
auth::Caller require_admin(const Request& req, Services& s);

// The path's {id} in lower case; 404 unless it is a uuid. Routes take {id} untyped so the
// role check comes first and a non-admin learns nothing from the shape of an id.
std::string path_uuid(const Request& req);

}  // namespace pouch::admin
