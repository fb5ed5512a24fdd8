// logout.cpp -- POST /v1/account/logout: the calling web session is deleted.
#include "common/auth/caller.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

http::Response logout(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    conn->run(sql::kDeleteSession, {.id = c.session_id});
    return http::Response{};
}

}  // namespace pouch::account
