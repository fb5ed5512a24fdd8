// usage.cpp -- usage reads and the growth check of usage.h over account_stored_bytes() and
// account_reserved_bytes() (sql/008_tenant_bounds.sql; the statements are sql_usage.h's).
#include "common/model/usage.h"

#include <stdexcept>

#include "common/json/out.h"
#include "common/model/sql_usage.h"

namespace pouch::model {

namespace {

Usage read(const std::optional<sql::UsageRow>& r) {
    if (!r) throw std::runtime_error("usage of an account that does not exist");
    return *r;
}

}  // namespace

Usage lock_account_usage(db::Conn& conn, const std::string& account_id) {
    return read(conn.maybe_one(sql::kLockUsage, {.account_id = account_id}));
}

Usage account_usage(db::Conn& conn, const std::string& account_id) {
    return read(conn.maybe_one(sql::kUsage, {.account_id = account_id}));
}

void require_within_quota(db::Conn& conn, const std::string& account_id, const Usage& before) {
    if (auto excess = rules::check_growth(before, account_usage(conn, account_id)))
        throw quota_exceeded(*excess, "this would take the account over its plan's storage limit");
}

Error quota_exceeded(const rules::QuotaExcess& e, const std::string& message,
                     const std::vector<QuotaDetail>& extra) {
    json::Out d;
    d.kv("limit_bytes", e.limit_bytes).kv("used_bytes", e.used_bytes);
    d.kv("requested_bytes", e.requested_bytes);
    for (const QuotaDetail& x : extra) d.kv(x.name, x.value);
    return Error(Fault::forbidden, "quota_exceeded", message).with_details(d.done());
}

}  // namespace pouch::model
