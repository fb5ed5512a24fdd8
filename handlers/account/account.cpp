// account.cpp -- GET /v1/account: the caller's user, account, plan and usage (decisions §4).
// Usage counts reservations that have not expired, even before `pouchctl gc` releases them.
#include "common/auth/caller.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

AccountAnswer get_account(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    auto r = conn->maybe_one(sql::kAccountOverview, {.user_id = c.user_id});
    if (!r) throw http::not_found();
    return {.user_id = r->user_id,
            .email = r->email,
            .role = r->role,
            .storage_account_id = r->account_id,
            // The caller's own member: the web member for a browser, the device's for a CLI.
            .member_id = c.is_cli() ? std::optional<std::string>(c.member_id) : r->web_member_id,
            .plan = static_cast<const model::Plan&>(*r),
            .usage = static_cast<const Usage&>(*r)};
}

}  // namespace pouch::account
