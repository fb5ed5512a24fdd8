// logout.cpp -- POST /v1/account/logout: the calling web session is deleted.
#include "common/auth/caller.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

Response logout(Request& req, Services& s) {
    auth::Caller c = auth::require_web(req, s);
    auto conn = s.db.acquire();
    conn->exec(sql::kDeleteSession, {c.session_id});
    return Response{};
}

}  // namespace pouch::account
