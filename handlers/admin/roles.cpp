// roles.cpp -- POST /v1/admin/users/{id}/role (op 12, decisions §1 and §7): sets a user's
// role. The target and every admin are locked in id order first, so "is this the last
// admin?" is answered under locks and two concurrent demotions cannot both pass. Writes the
// same audit record as `pouchctl user role` (action user.role, before/after {"role": ...}),
// with the acting admin and the request id; setting the role a user already has changes
// and audits nothing.
#include <string>

#include "common/http/error.h"
#include "handlers/admin/audit_record.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

RoleChange set_role(api::Call& call, const SetRoleRequest& body) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const std::string& id = call.param("id");
    const std::string& role = body.role;

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    std::vector<sql::UserRole> rows = conn->rows(sql::kLockRoleRows, {.id = id});
    const sql::UserRole* target = nullptr;
    int admins = 0;
    bool caller_admin = false;
    for (const sql::UserRole& u : rows) {
        bool is_admin = u.role == "admin";
        if (u.id == id) target = &u;
        if (is_admin) ++admins;
        if (is_admin && u.id == c.user_id) caller_admin = true;
    }
    // The caller's role was read before the locks; one demoted meanwhile acts no more.
    if (!caller_admin) throw http::forbidden("admin role required");
    if (!target) throw http::not_found();
    std::string previous = target->role;
    if (previous != role) {
        if (previous == "admin" && admins <= 1) throw Error(Code::last_admin);
        conn->run(sql::kSetRole, {.id = id, .role = role});
        write_audit(*conn, call, "user.role", id, RoleValue{previous}, RoleValue{role},
                    body.reason);
    }
    tx.commit();

    return {.id = id, .role = role, .previous_role = previous};
}

}  // namespace pouch::admin
