// create.cpp -- POST /v1/pouches/{pouchId}/shares (op 13, decisions §8), web only: stores a
// share sealed in the browser. The pouch must be the caller's account's (404); the id must be
// new across all accounts (409 share_exists: ids are client-chosen random UUIDs, so a clash
// reveals nothing). size = decoded byte length of the bundle. The bundle and label count in
// the account's usage (403 quota_exceeded past the plan), and an account holds at most 1,000
// live shares (decisions §13).
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "common/model/usage.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/share_json.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

namespace {

// Live (active) shares an account may hold at once (decisions §13).
constexpr long long kMaxLiveShares = 1000;

// The lifetime as a PostgreSQL interval; nullopt (SQL NULL) for `never`.
db::Param lifetime(const rapidjson::Document& doc) {
    std::string e = doc.HasMember("expires") ? json::text(doc["expires"]) : "7d";
    if (e == "1d") return "1 day";
    if (e == "7d") return "7 days";
    if (e == "30d") return "30 days";
    return std::nullopt;
}

}  // namespace

http::Response create(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    std::string id = json::text(doc["id"]);
    std::string pouch_id = req.param("pouchId");
    const auto& bundle = doc["bundle"];
    // Unpadded b64url: every 4 characters carry 3 bytes, a tail of 2 or 3 carries 1 or 2.
    long long size = static_cast<long long>(bundle.GetStringLength()) * 3 / 4;
    bool one_time = doc.HasMember("one_time") && doc["one_time"].GetBool();

    // What the share adds to usage: the stored bundle and label (share_bytes() of
    // sql/008_tenant_bounds.sql), weighed before an insert of up to 11 MB (rules/quota.h).
    long long bytes =
        static_cast<long long>(bundle.GetStringLength() + doc["label_enc"].GetStringLength());

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    model::Usage before = model::lock_account_usage(*conn, c.account_id);
    long long live = conn->exec(sql::kLiveShares, {c.account_id}).int64(0, "n");
    if (live >= kMaxLiveShares)
        throw model::quota_exceeded(
            rules::QuotaExcess{before.limit_bytes, before.used(), bytes},
            "the account already has " + std::to_string(kMaxLiveShares) + " live shares",
            {{"limit_shares", kMaxLiveShares}, {"live_shares", live}});
    if (auto excess = rules::check_request(before, bytes))
        throw model::quota_exceeded(*excess,
                                    "this would take the account over its plan's storage limit");
    db::Result r = conn->exec(
        sql::kCreateShare,
        {id, c.account_id, pouch_id, c.user_id, json::text(doc["label_enc"]), lifetime(doc),
         json::text(bundle), std::to_string(size), one_time ? "true" : "false"});
    if (r.rows() == 0) throw Error(Code::share_exists);
    tx.commit();
    return api::created(share_data(r, 0));
}

}  // namespace pouch::shares
