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

TokenAnswer refresh(api::Call& call, const RefreshRequest& body) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const std::string& presented = body.refresh_token;
    if (!auth::has_token_shape(presented, "svc_rt_")) throw invalid_grant("unknown refresh token");

    std::string hash = crypto::token_hash(presented);
    {
        auto conn = s.db.acquire();
        auto k = conn->maybe_one(sql::kRefreshTokenKey, {.token_hash = hash});
        if (!k) throw invalid_grant("unknown refresh token");
        if (!crypto::ct_equal(proof.jkt, k->jkt))
            throw auth::dpop_error("the DPoP key is not the device's key");
    }

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    auto r = conn->maybe_one(sql::kLockRefreshToken,
                             {.token_hash = hash, .grace_seconds = rules::kRefreshGraceSeconds});
    // pouchctl gc may have deleted an expired token since it was read above.
    if (!r) throw invalid_grant("unknown refresh token");
    const std::string& device_id = r->device_id;
    rules::PresentedRefresh t;
    t.device_revoked = r->device_revoked;
    t.revoked = r->revoked;
    t.expired = r->expired;
    t.used = r->used;
    t.within_grace = r->within_grace;
    t.retried = r->retried;
    std::optional<std::string> lost_access;  // the access token of the pair a retry replaces
    const std::optional<std::string>& successor = r->replaced_by;
    if (t.used && t.within_grace && !t.retried && successor) {
        auto n = conn->maybe_one(sql::kLockSuccessor, {.token_hash = *successor});
        t.successor_untouched = n && n->untouched;
        if (t.successor_untouched) lost_access = n->access_token_hash;
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

    sql::DeviceForTokens device = conn->one(sql::kDeviceForTokens, {.id = device_id});
    TokenPair fresh = issue_tokens(*conn, device_id, proof.jkt);
    std::string fresh_hash = crypto::token_hash(fresh.refresh_token);
    if (lost_access) {
        // The pair of the lost answer can never be used now: the retry's pair replaces it.
        conn->run(sql::kRevokeRefreshToken, {.token_hash = *successor});
        conn->run(sql::kRevokeAccessToken, {.token_hash = *lost_access});
        conn->run(sql::kMarkRefreshRetried, {.token_hash = hash, .replaced_by = fresh_hash});
        log::info("refresh retried after a lost answer: the lost pair revoked",
                  {{"request_id", req.request_id}, {"device_id", device_id}});
    } else {
        conn->run(sql::kMarkRefreshUsed, {.token_hash = hash, .replaced_by = fresh_hash});
    }
    tx.commit();
    return token_answer(fresh, device);
}

}  // namespace pouch::cliauth
