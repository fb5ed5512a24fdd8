// create.cpp -- POST /v1/pouches/{pouchId}/shares (op 13, decisions §8), web only: stores a
// share sealed in the browser. The pouch must be the caller's account's (404); the id must be
// new across all accounts (409 share_exists: ids are client-chosen random UUIDs, so a clash
// reveals nothing). size = decoded byte length of the bundle. The bundle and label count in
// the account's usage (403 quota_exceeded past the plan), and an account holds at most 1,000
// live shares (decisions §13).
#include "common/auth/caller.h"
#include "common/model/usage.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

namespace {

// Live (active) shares an account may hold at once (decisions §13).
constexpr long long kMaxLiveShares = 1000;

// The lifetime as a PostgreSQL interval; nullopt (SQL NULL) for `never`.
std::optional<std::string> lifetime(const std::optional<std::string>& expires) {
    std::string e = expires.value_or("7d");
    if (e == "1d") return "1 day";
    if (e == "7d") return "7 days";
    if (e == "30d") return "30 days";
    return std::nullopt;
}

}  // namespace

api::Created<Share> create(api::Call& call, const CreateRequest& body) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    std::string pouch_id = req.param("pouchId");
    // Unpadded b64url: every 4 characters carry 3 bytes, a tail of 2 or 3 carries 1 or 2.
    long long size = static_cast<long long>(body.bundle.size()) * 3 / 4;

    // What the share adds to usage: the stored bundle and label (share_bytes() of
    // sql/008_tenant_bounds.sql), weighed before an insert of up to 11 MB (rules/quota.h).
    long long bytes = static_cast<long long>(body.bundle.size() + body.label_enc.size());

    // The share is stored under the pouch's owner, who pays for it (docs/SHARING.md §8).
    const std::string& owner = call.pouch().owner();
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    model::Usage before = model::lock_account_usage(*conn, owner);
    long long live = conn->one(sql::kLiveShares, {.account_id = owner}).n;
    if (live >= kMaxLiveShares)
        throw model::quota_exceeded(
            rules::QuotaExcess{before.limit_bytes, before.used(), bytes},
            "the account already has " + std::to_string(kMaxLiveShares) + " live shares",
            {{"limit_shares", kMaxLiveShares}, {"live_shares", live}});
    if (auto excess = rules::check_request(before, bytes))
        throw model::quota_exceeded(*excess,
                                    "this would take the account over its plan's storage limit");
    std::optional<Share> r =
        conn->maybe_one(sql::kCreateShare, {.id = body.id,
                                            .account_id = owner,
                                            .pouch_id = pouch_id,
                                            .created_by_user = c.user_id,
                                            .label_enc = body.label_enc,
                                            .lifetime = lifetime(body.expires),
                                            .bundle = body.bundle,
                                            .size = size,
                                            .one_time = body.one_time.value_or(false)});
    if (!r) throw Error(Code::share_exists);
    tx.commit();
    return {std::move(*r)};
}

}  // namespace pouch::shares
