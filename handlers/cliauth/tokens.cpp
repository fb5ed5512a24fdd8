// tokens.cpp -- access and refresh tokens: 32 random bytes after a prefix, only their
// SHA-256 stored, both bound to the device's DPoP key (jkt).
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {


TokenPair issue_tokens(db::Conn& conn, const std::string& device_id, const std::string& jkt) {
    TokenPair t{crypto::new_token("svc_at_"), crypto::new_token("svc_rt_")};
    conn.run(sql::kInsertAccessToken, {.token_hash = crypto::token_hash(t.access_token),
                                       .device_id = device_id,
                                       .jkt = jkt,
                                       .seconds = kAccessTokenSeconds});
    conn.run(sql::kInsertRefreshToken, {.token_hash = crypto::token_hash(t.refresh_token),
                                        .device_id = device_id,
                                        .jkt = jkt,
                                        .access_token_hash = crypto::token_hash(t.access_token)});
    return t;
}

TokenAnswer token_answer(const TokenPair& t, const sql::DeviceForTokens& device) {
    return {.access_token = t.access_token,
            .refresh_token = t.refresh_token,
            .expires_in = kAccessTokenSeconds,
            .device_id = device.id,
            .storage_account_id = device.account_id,
            .member_id = device.member_id};
}

}  // namespace pouch::cliauth
