// route_tables.h -- every handler group's one route table (handlers/<group>/routes.h, the same
// tables main.cpp installs), for the unit tests that hold route facts against other files: the
// permission matrix (route_matrix_test.cpp) and nginx's locations (route_nginx_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "handlers/account/routes.h"
#include "handlers/admin/routes.h"
#include "handlers/cliauth/routes.h"
#include "handlers/devices/routes.h"
#include "handlers/shares/routes.h"
#include "handlers/sync/routes.h"

namespace pouch::api {

struct GroupRoute {
    std::string group;  // the handler binary (pouch-<group>) that serves the route
    const Route* route;
};

inline std::vector<GroupRoute> all_group_routes() {
    std::vector<GroupRoute> out;
    auto add = [&](const char* group, std::span<const Entry> table) {
        for (const Entry& e : table) out.push_back({group, &e.route});
    };
    add("account", account::kRoutes);
    add("cliauth", cliauth::kRoutes);
    add("devices", devices::kRoutes);
    add("sync", sync::kRoutes);
    add("shares", shares::kRoutes);
    add("admin", admin::kRoutes);
    return out;
}

inline std::vector<const Route*> all_routes() {
    std::vector<const Route*> out;
    for (const GroupRoute& g : all_group_routes()) out.push_back(g.route);
    return out;
}

}  // namespace pouch::api
