// list.cpp -- GET /v1/devices: the devices of the caller's account, revoked ones included,
// in creation order, paged by common/paging/paging.h (decisions §13).
#include "common/json/out.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

http::Response list(api::Call& call) {
    const auth::Caller& c = call.who();
    const paging::List list("devices/" + c.account_id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(call.query);
    long long limit = call.query.integer("limit");
    auto conn = call.services.db.acquire();
    db::Result r =
        conn->exec(sql::kListDevices, {c.account_id, paging::after_key(after, 0),
                                       paging::after_key(after, 1), std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        o.obj();
        o.kv("id", r.text(i, "id")).kv("name", r.text(i, "name"));
        o.kv("member_id", r.text(i, "member_id")).kv("os", r.text(i, "os"));
        o.kv("arch", r.text(i, "arch")).kv("cli_version", r.text(i, "cli_version"));
        o.kv("key_storage", r.text(i, "key_storage")).kv("created_at", r.text(i, "created_at"));
        o.kv("last_seen_at", r.opt(i, "last_seen_at")).kv("revoked_at", r.opt(i, "revoked_at"));
        o.kv("rotation_pending", r.boolean(i, "rotation_pending"));
        o.end_obj();
        return paging::Keys{r.text(i, "created_us"), r.text(i, "id")};
    });
}

}  // namespace pouch::devices
