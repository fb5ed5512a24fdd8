// device_tokens.h -- ending a CLI device's sessions: every access and refresh token of the
// device revoked at once. Used by the devices group (revoke, op 11) and by cliauth (a refresh
// token presented again after its 60 s retry window, decisions §6). Runs inside the caller's
// transaction.
#pragma once

#include <string>

#include "common/db/pool.h"

namespace pouch::model {

// Marks every not yet revoked access and refresh token of the device revoked (now()).
void revoke_device_tokens(db::Conn& conn, const std::string& device_id);

}  // namespace pouch::model
