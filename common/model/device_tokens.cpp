// device_tokens.cpp -- the two statements that revoke a device's tokens, in one place for
// every group that ends a device's sessions.
#include "common/model/device_tokens.h"

namespace pouch::model {

namespace {

const db::Statement kRevokeAccessTokens{
    "model_revoke_device_access_tokens",
    "UPDATE access_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

const db::Statement kRevokeRefreshTokens{
    "model_revoke_device_refresh_tokens",
    "UPDATE refresh_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

}  // namespace

void revoke_device_tokens(db::Conn& conn, const std::string& device_id) {
    conn.exec(kRevokeAccessTokens, {device_id});
    conn.exec(kRevokeRefreshTokens, {device_id});
}

}  // namespace pouch::model
