// account.cpp -- GET /v1/account: the caller's user, account, plan and usage (decisions §4).
// Usage counts reservations that have not expired, even before `pouchctl gc` releases them.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "common/model/plan.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

http::Response get_account(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kAccountOverview, {c.user_id});
    if (r.rows() == 0) throw http::not_found();
    json::Out o;
    o.kv("user_id", r.text(0, "user_id")).kv("email", r.text(0, "email"));
    o.kv("role", r.text(0, "role")).kv("storage_account_id", r.text(0, "account_id"));
    // The caller's own member: the web member for a browser, the device's for a CLI.
    if (c.is_cli())
        o.kv("member_id", c.member_id);
    else
        o.kv("member_id", r.opt(0, "web_member_id"));
    o.key("plan");
    model::write_plan(o, r, 0);
    o.key("usage").obj();
    o.kv("stored_bytes", r.int64(0, "stored_bytes"));
    o.kv("reserved_bytes", r.int64(0, "reserved_bytes"));
    o.kv("pouches", r.int64(0, "pouches"));
    o.end_obj();
    return api::ok(o.done());
}

}  // namespace pouch::account
