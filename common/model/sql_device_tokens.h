// sql_device_tokens.h -- the two statements that revoke a device's tokens (device_tokens.cpp),
// in a header so tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::model::sql {

struct ByDevice {
    std::string device_id;
    static auto db_params() { return std::tuple{db::col("device_id", &ByDevice::device_id)}; }
};

inline const db::Query<ByDevice> kRevokeAccessTokens{
    "model_revoke_device_access_tokens",
    "UPDATE access_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

inline const db::Query<ByDevice> kRevokeRefreshTokens{
    "model_revoke_device_refresh_tokens",
    "UPDATE refresh_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

}  // namespace pouch::model::sql
