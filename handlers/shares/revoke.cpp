// revoke.cpp -- POST /v1/shares/{id}/revoke (decisions §8), web only, the owner account's
// shares only (another account's share is 404). Idempotent: revoking again keeps the first
// revoked_at and answers the same Share object.
#include "common/auth/caller.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

Share revoke(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    auto r =
        conn->maybe_one(sql::kRevokeShare, {.id = req.param("id"), .account_id = c.account_id});
    if (!r) throw http::not_found();
    return std::move(*r);
}

}  // namespace pouch::shares
