// revoke.cpp -- POST /v1/shares/{id}/revoke (decisions §8), web only, the owner account's
// shares only (another account's share is 404). Idempotent: revoking again keeps the first
// revoked_at and answers the same Share object.
#include "common/auth/caller.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/share_json.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

http::Response revoke(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kRevokeShare, {req.param("id"), c.account_id});
    if (r.rows() == 0) throw http::not_found();
    return api::ok(share_data(r, 0));
}

}  // namespace pouch::shares
