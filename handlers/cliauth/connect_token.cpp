// connect_token.cpp -- POST /v1/cli-auth/connect-tokens (web): a single-use token that binds
// the next CLI login to this account (interface: svc_lt_ + 32 b64url characters).
#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

http::Response connect_token(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    std::string token = "svc_lt_" + crypto::b64url_encode(crypto::random_bytes(24));
    auto conn = s.db.acquire();
    conn->exec(sql::kInsertConnectToken, {crypto::token_hash(token), c.account_id, c.user_id,
                                          std::to_string(kConnectTokenSeconds)});
    json::Out o;
    o.kv("connect_token", token).kv("expires_in", kConnectTokenSeconds);
    return api::ok(o.done());
}

}  // namespace pouch::cliauth
