// rename.cpp -- PATCH /v1/devices/{id} (op 14): a web caller renames any device of its
// account; a CLI only itself (403 forbidden otherwise). Another account's device: 404.
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

DeviceName rename(api::Call& call, const RenameRequest& body) {
    const auth::Caller& c = call.who();
    const std::string& id = call.param("id");
    auto conn = call.services.db.acquire();
    if (c.is_cli() && id != c.device_id) {
        // Existence of another account's device is never revealed.
        if (!conn->maybe_one(sql::kLockDevice, {.id = id, .account_id = c.account_id}))
            throw http::not_found();
        throw http::forbidden("a CLI device may rename only itself");
    }
    auto renamed = conn->maybe_one(sql::kRenameDevice,
                                   {.id = id, .account_id = c.account_id, .name = body.name});
    if (!renamed) throw http::not_found();
    return *renamed;
}

}  // namespace pouch::devices
