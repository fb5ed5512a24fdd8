// list.cpp -- GET /v1/devices: every device of the caller's account, revoked ones included.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

Response list(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kListDevices, {c.account_id});
    json::Out o;
    o.key("items").arr();
    for (int i = 0; i < r.rows(); ++i) {
        o.obj();
        o.kv("id", r.text(i, "id")).kv("name", r.text(i, "name"));
        o.kv("member_id", r.text(i, "member_id")).kv("os", r.text(i, "os"));
        o.kv("arch", r.text(i, "arch")).kv("cli_version", r.text(i, "cli_version"));
        o.kv("key_storage", r.text(i, "key_storage")).kv("created_at", r.text(i, "created_at"));
        o.kv("last_seen_at", r.opt(i, "last_seen_at")).kv("revoked_at", r.opt(i, "revoked_at"));
        o.end_obj();
    }
    o.end_arr();
    Response resp;
    resp.data = o.done();
    resp.list = true;
    return resp;
}

}  // namespace pouch::devices
