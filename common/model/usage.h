// usage.h -- what an account stores and may still store (decisions §5.5, §13), for the
// writers of key envelopes, roster statements and share bundles. Their bytes are counted by
// the triggers of sql/008_tenant_bounds.sql; such a writer locks the account row first (before
// any pouch row, the lock order every path keeps), writes, then asks whether it grew the
// account past its plan, and if so the whole request is refused (403 quota_exceeded) and rolls
// back. Lowering a plan never deletes data: only growth is refused.
#pragma once

#include <string>
#include <vector>

#include "common/db/pool.h"
#include "common/rules/quota.h"
#include "common/types/error.h"

namespace pouch::model {

// stored_bytes is account_stored_bytes(), reserved_bytes account_reserved_bytes(); the
// arithmetic on them is common/rules/quota.h's.
using Usage = rules::Usage;

// Locks the account row (FOR UPDATE) and reads its usage.
Usage lock_account_usage(db::Conn& conn, const std::string& account_id);

// Reads the usage again after this transaction's writes; throws 403 quota_exceeded when
// rules::check_growth refuses it.
void require_within_quota(db::Conn& conn, const std::string& account_id, const Usage& before);

// Reads the account's usage without locking (the caller holds the account row).
Usage account_usage(db::Conn& conn, const std::string& account_id);

// A further number in the details of quota_exceeded ({"limit_shares", 1000}).
struct QuotaDetail {
    std::string name;
    long long value = 0;
};

// 403 quota_exceeded with details {limit_bytes, used_bytes, requested_bytes} followed by
// `extra` (a share refused for the live-share bound adds limit_shares and live_shares).
Error quota_exceeded(const rules::QuotaExcess& e, const std::string& message,
                     const std::vector<QuotaDetail>& extra = {});

}  // namespace pouch::model
