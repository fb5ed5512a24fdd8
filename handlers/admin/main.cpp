// main.cpp -- the admin handler: plans, user roles and the audit log (decisions §7).
#include "common/api/main.h"
#include "handlers/admin/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("admin", argc, argv, [](http::Router& r, const config::Config&) {
        api::add(r, admin::kListPlans, admin::list_plans);
        api::add(r, admin::kGetPlan, api::typed(admin::get_plan));
        api::add(r, admin::kUpdatePlan, api::typed(admin::update_plan));
        api::add(r, admin::kSetRole, api::typed(admin::set_role));
        api::add(r, admin::kAudit, admin::list_audit);
    });
}
