// rename.cpp -- PATCH /v1/devices/{id} (op 14): a web caller renames any device of its
// account; a CLI only itself (403 forbidden otherwise). Another account's device: 404.
#include "common/json/out.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

http::Response rename(api::Call& call) {
    const auth::Caller& c = call.who();
    const std::string& id = call.param("id");
    auto conn = call.services.db.acquire();
    if (c.is_cli() && id != c.device_id) {
        // Existence of another account's device is never revealed.
        if (conn->exec(sql::kLockDevice, {id, c.account_id}).rows() == 0) throw http::not_found();
        throw http::forbidden("a CLI device may rename only itself");
    }
    db::Result r =
        conn->exec(sql::kRenameDevice, {id, c.account_id, json::text(call.body["name"])});
    if (r.rows() == 0) throw http::not_found();
    json::Out o;
    o.kv("id", r.text(0, "id")).kv("name", r.text(0, "name"));
    return api::ok(o.done());
}

}  // namespace pouch::devices
