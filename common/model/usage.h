// usage.h -- what an account stores and may still store (decisions §5.5, §13), for the
// writers of key envelopes, roster statements and share bundles. Their bytes are counted by
// the triggers of sql/008_tenant_bounds.sql; such a writer locks the account row first (before
// any pouch row, the lock order every path keeps), writes, then asks whether it grew the
// account past its plan, and if so the whole request is refused (403 quota_exceeded) and rolls
// back. Lowering a plan never deletes data: only growth is refused.
#pragma once

#include <string>

#include "common/db/pool.h"
#include "common/http/error.h"

namespace pouch::model {

struct Usage {
    long long limit_bytes = 0;     // the plan's storage_bytes
    long long stored_bytes = 0;    // account_stored_bytes(): everything stored
    long long reserved_bytes = 0;  // active blob reservations
};

// Locks the account row (FOR UPDATE) and reads its usage.
Usage lock_account_usage(db::Conn& conn, const std::string& account_id);

// Reads the usage again after this transaction's writes; throws 403 quota_exceeded (details
// limit_bytes, used_bytes = stored + reserved before, requested_bytes = the growth) when the
// request grew the stored bytes and stored + reserved now exceed the limit.
void require_within_quota(db::Conn& conn, const std::string& account_id, const Usage& before);

ApiError quota_exceeded(long long limit, long long used, long long requested,
                        const std::string& message);

}  // namespace pouch::model
