// connect_token.cpp -- POST /v1/cli-auth/connect-tokens (web): a single-use token that binds
// the next CLI login to this account (interface: svc_lt_ + 32 b64url characters).
#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

ConnectTokenAnswer connect_token(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    std::string token = "svc_lt_" + crypto::b64url_encode(crypto::random_bytes(24));
    auto conn = s.db.acquire();
    conn->run(sql::kInsertConnectToken, {.token_hash = crypto::token_hash(token),
                                         .account_id = c.account_id,
                                         .user_id = c.user_id,
                                         .seconds = kConnectTokenSeconds});
    return {.connect_token = token, .expires_in = kConnectTokenSeconds};
}

}  // namespace pouch::cliauth
