// logout.cpp -- POST /v1/account/logout: the calling web session is deleted.
#include "common/auth/caller.h"
#include "common/json/schema.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

Response logout(Request& req, Services& s) {
    auth::Caller c = auth::require_web(req, s);
    json::schema::validate_empty_body(req.body);
    auto conn = s.db.acquire();
    conn->exec(sql::kDeleteSession, {c.session_id});
    return Response{};
}

}  // namespace pouch::account
