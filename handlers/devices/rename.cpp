// rename.cpp -- PATCH /v1/devices/{id} (op 14): a web caller renames any device of its
// account; a CLI only itself (403 forbidden otherwise). Another account's device: 404.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

namespace {
namespace js = json::schema;
const js::Node kRename = js::object({js::req("name", js::string().min_chars(1).max_chars(64))});
}  // namespace

Response rename(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    rapidjson::Document doc = json::parse_strict(req.body);
    js::validate(doc, kRename);
    std::string id = req.param("id");
    auto conn = s.db.acquire();
    if (c.is_cli() && id != c.device_id) {
        // Existence of another account's device is never revealed.
        if (conn->exec(sql::kLockDevice, {id, c.account_id}).rows() == 0) throw not_found();
        throw forbidden("a CLI device may rename only itself");
    }
    db::Result r = conn->exec(sql::kRenameDevice, {id, c.account_id, doc["name"].GetString()});
    if (r.rows() == 0) throw not_found();
    json::Out o;
    o.kv("id", r.text(0, "id")).kv("name", r.text(0, "name"));
    Response resp;
    resp.data = o.done();
    return resp;
}

}  // namespace pouch::devices
