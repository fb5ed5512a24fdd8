// main.cpp -- the admin handler: plans, user roles and the audit log (decisions §7).
// {id} segments are untyped on purpose: see path_uuid() in routes.h.
#include "common/http/server.h"
#include "handlers/admin/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return handler_main("admin", argc, argv, [](Router& r) {
        r.add_query("GET", "/v1/admin/plans", admin::list_plans);
        r.add("GET", "/v1/admin/plans/{id}", admin::get_plan);
        r.add("PUT", "/v1/admin/plans/{id}", admin::update_plan);
        r.add("POST", "/v1/admin/users/{id}/role", admin::set_role);
        r.add_query("GET", "/v1/admin/audit", admin::list_audit);
    });
}
