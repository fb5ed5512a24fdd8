// refresh.cpp -- POST /v1/cli-auth/refresh: single-use refresh tokens rotated on every use
// (RFC 9700 §4.14.2). What a presented token does is common/rules/refresh.h's: a fresh one
// rotates; the token just rotated, presented again within 60 s by the same device (a retry
// of a lost answer), gets a new pair once while the lost pair is untouched, and the lost pair
// is revoked; any other reuse is invalid_grant, and past the 60 s it also revokes every token
// of the device (reuse detection).
#include "common/rules/refresh.h"
#include "common/auth/caller.h"
#include "common/auth/dpop_check.h"
#include "common/crypto/ct.h"
#include "common/crypto/random.h"
#include "common/log/log.h"
#include "common/model/device_tokens.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

Error invalid_grant(const char* why) {
    return Error(Code::invalid_grant, why);
}

}  // namespace

http::Response refresh(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const rapidjson::Document& doc = call.body;
    std::string presented = doc["refresh_token"].GetString();
    if (!auth::has_token_shape(presented, "svc_rt_")) throw invalid_grant("unknown refresh token");

    std::string hash = crypto::token_hash(presented);
    {
        auto conn = s.db.acquire();
        db::Result k = conn->exec(sql::kRefreshTokenKey, {hash});
        if (k.rows() == 0) throw invalid_grant("unknown refresh token");
        if (!crypto::ct_equal(proof.jkt, k.text(0, "jkt")))
            throw auth::dpop_error("the DPoP key is not the device's key");
    }

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result r =
        conn->exec(sql::kLockRefreshToken, {hash, std::to_string(rules::kRefreshGraceSeconds)});
    // pouchctl gc may have deleted an expired token since it was read above.
    if (r.rows() == 0) throw invalid_grant("unknown refresh token");
    std::string device_id = r.text(0, "device_id");
    rules::PresentedRefresh t;
    t.device_revoked = r.boolean(0, "device_revoked");
    t.revoked = r.boolean(0, "revoked");
    t.expired = r.boolean(0, "expired");
    t.used = r.boolean(0, "used");
    t.within_grace = r.boolean(0, "within_grace");
    t.retried = r.boolean(0, "retried");
    std::optional<std::string> lost_access;  // the access token of the pair a retry replaces
    auto successor = r.opt(0, "replaced_by");
    if (t.used && t.within_grace && !t.retried && successor) {
        db::Result n = conn->exec(sql::kLockSuccessor, {*successor});
        t.successor_untouched = n.rows() > 0 && n.boolean(0, "untouched");
        if (t.successor_untouched) lost_access = n.text(0, "access_token_hash");
    }

    switch (rules::refresh_step(t)) {
        case rules::RefreshStep::device_revoked:
            throw Error(Code::device_revoked);
        case rules::RefreshStep::refuse_and_revoke:
            model::revoke_device_tokens(*conn, device_id);
            tx.commit();
            log::warn("refresh token reuse: every token of the device revoked",
                      {{"request_id", req.request_id}, {"device_id", device_id}});
            throw invalid_grant("refresh token already used");
        case rules::RefreshStep::refuse:
            throw invalid_grant(t.used ? "refresh token already used"
                                       : "refresh token expired or revoked");
        case rules::RefreshStep::retry:
        case rules::RefreshStep::rotate:
            break;
    }

    db::Result device = conn->exec(sql::kDeviceForTokens, {device_id});
    TokenPair fresh = issue_tokens(*conn, device_id, proof.jkt);
    std::string fresh_hash = crypto::token_hash(fresh.refresh_token);
    if (lost_access) {
        // The pair of the lost answer can never be used now: the retry's pair replaces it.
        conn->exec(sql::kRevokeRefreshToken, {*successor});
        conn->exec(sql::kRevokeAccessToken, {*lost_access});
        conn->exec(sql::kMarkRefreshRetried, {hash, fresh_hash});
        log::info("refresh retried after a lost answer: the lost pair revoked",
                  {{"request_id", req.request_id}, {"device_id", device_id}});
    } else {
        conn->exec(sql::kMarkRefreshUsed, {hash, fresh_hash});
    }
    tx.commit();
    json::Out o;
    write_token_fields(o, fresh, device);
    return api::ok(o.done());
}

}  // namespace pouch::cliauth
