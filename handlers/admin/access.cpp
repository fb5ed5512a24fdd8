// access.cpp -- who may call the admin paths (decisions §1): web callers whose role is
// admin. Relies on auth::require_web, which reads the role from the database per request,
// so a demotion takes effect on the next call.
#include "common/http/error.h"
#include "common/types/uuid.h"
#include "handlers/admin/routes.h"

namespace pouch::admin {

auth::Caller require_admin(const Request& req, Services& s) {
    auth::Caller c = auth::require_web(req, s);
    if (c.role != "admin") throw forbidden("admin role required");
    return c;
}

std::string path_uuid(const Request& req) {
    auto id = canonical_uuid(req.param("id"));
    if (!id) throw not_found();
    return *id;
}

}  // namespace pouch::admin
