// roles.cpp -- POST /v1/admin/users/{id}/role (op 12, decisions §1 and §7): sets a user's
// role. The target and every admin are locked in id order first, so "is this the last
// admin?" is answered under locks and two concurrent demotions cannot both pass. Writes the
// same audit record as `pouchctl user role` (action user.role, before/after {"role": ...}),
// with the acting admin and the request id; setting the role a user already has changes
// and audits nothing.
#include <string>

#include "common/http/error.h"
#include "common/json/out.h"
#include "handlers/admin/audit_record.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

std::string role_json(const std::string& role) {
    json::Out o;
    o.kv("role", role);
    return o.done();
}

}  // namespace

http::Response set_role(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const std::string& id = call.param("id");
    const rapidjson::Document& doc = call.body;
    std::string role = doc["role"].GetString();

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result r = conn->exec(sql::kLockRoleRows, {id});
    int target = -1, admins = 0;
    bool caller_admin = false;
    for (int i = 0; i < r.rows(); ++i) {
        std::string row_id = r.text(i, "id");
        bool is_admin = r.text(i, "role") == "admin";
        if (row_id == id) target = i;
        if (is_admin) ++admins;
        if (is_admin && row_id == c.user_id) caller_admin = true;
    }
    // The caller's role was read before the locks; one demoted meanwhile acts no more.
    if (!caller_admin) throw http::forbidden("admin role required");
    if (target < 0) throw http::not_found();
    std::string previous = r.text(target, "role");
    if (previous != role) {
        if (previous == "admin" && admins <= 1) throw Error(Code::last_admin);
        conn->exec(sql::kSetRole, {id, role});
        write_audit(*conn, call, "user.role", id, role_json(previous), role_json(role));
    }
    tx.commit();

    json::Out o;
    o.kv("id", id).kv("role", role).kv("previous_role", previous);
    return api::ok(o.done());
}

}  // namespace pouch::admin
