// main.cpp -- the admin handler: plans, user roles and the audit log (decisions §7).
#include "common/api/main.h"
#include "handlers/admin/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("admin", argc, argv, [](http::Router& r, const config::Config&) {
        api::add(r, admin::kRoutes);
    });
}
