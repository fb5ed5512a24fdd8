// tokens.cpp -- access and refresh tokens: 32 random bytes after a prefix, only their
// SHA-256 stored, both bound to the device's DPoP key (jkt).
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {


TokenPair issue_tokens(db::Conn& conn, const std::string& device_id, const std::string& jkt) {
    TokenPair t{crypto::new_token("svc_at_"), crypto::new_token("svc_rt_")};
    conn.exec(sql::kInsertAccessToken, {crypto::token_hash(t.access_token), device_id, jkt,
                                        std::to_string(kAccessTokenSeconds)});
    conn.exec(sql::kInsertRefreshToken, {crypto::token_hash(t.refresh_token), device_id, jkt,
                                         crypto::token_hash(t.access_token)});
    return t;
}

void write_token_fields(json::Out& o, const TokenPair& t, const db::Result& device) {
    o.kv("token_type", "DPoP");
    o.kv("access_token", t.access_token).kv("refresh_token", t.refresh_token);
    o.kv("expires_in", kAccessTokenSeconds);
    o.kv("device_id", device.text(0, "id"));
    o.kv("storage_account_id", device.text(0, "account_id"));
    o.kv("member_id", device.text(0, "member_id"));
    o.kv("status", "approved");
}

}  // namespace pouch::cliauth
