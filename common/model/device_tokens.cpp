// device_tokens.cpp -- the two statements that revoke a device's tokens (sql_device_tokens.h),
// in one place for every group that ends a device's sessions.
#include "common/model/device_tokens.h"

#include "common/model/sql_device_tokens.h"

namespace pouch::model {

void revoke_device_tokens(db::Conn& conn, const std::string& device_id) {
    conn.run(sql::kRevokeAccessTokens, {.device_id = device_id});
    conn.run(sql::kRevokeRefreshTokens, {.device_id = device_id});
}

}  // namespace pouch::model
