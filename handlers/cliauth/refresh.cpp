// refresh.cpp -- POST /v1/cli-auth/refresh: single-use refresh tokens rotated on every use
// (RFC 9700 §4.14.2). A used token is invalid_grant; used more than 60 s ago (not a retry of
// a lost response) it also revokes every token of the device (reuse detection).
#include "common/auth/caller.h"
#include "common/auth/dpop_check.h"
#include "common/crypto/ct.h"
#include "common/crypto/random.h"
#include "common/log/log.h"
#include "common/model/device_tokens.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

http::Response refresh(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const rapidjson::Document& doc = call.body;
    std::string presented = doc["refresh_token"].GetString();
    if (!auth::has_token_shape(presented, "svc_rt_"))
        throw http::ApiError(400, "invalid_grant", "unknown refresh token");

    std::string hash = crypto::token_hash(presented);
    {
        auto conn = s.db.acquire();
        db::Result k = conn->exec(sql::kRefreshTokenKey, {hash});
        if (k.rows() == 0) throw http::ApiError(400, "invalid_grant", "unknown refresh token");
        if (!crypto::ct_equal(proof.jkt, k.text(0, "jkt")))
            throw auth::dpop_error("the DPoP key is not the device's key");
    }
    auth::record_dpop(proof, s);  // no connection held: the replay cache may need one

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result r = conn->exec(sql::kLockRefreshToken, {hash});
    std::string device_id = r.text(0, "device_id");
    if (r.boolean(0, "device_revoked"))
        throw http::ApiError(401, "device_revoked", "this device has been revoked");
    if (r.boolean(0, "used")) {
        if (r.boolean(0, "reused_late")) {
            model::revoke_device_tokens(*conn, device_id);
            tx.commit();
            log::warn("refresh token reuse: every token of the device revoked",
                      {{"request_id", req.request_id}, {"device_id", device_id}});
        }
        throw http::ApiError(400, "invalid_grant", "refresh token already used");
    }
    if (r.boolean(0, "revoked") || r.boolean(0, "expired"))
        throw http::ApiError(400, "invalid_grant", "refresh token expired or revoked");

    db::Result device = conn->exec(sql::kDeviceForTokens, {device_id});
    TokenPair t = issue_tokens(*conn, device_id, proof.jkt);
    conn->exec(sql::kMarkRefreshUsed, {hash, crypto::token_hash(t.refresh_token)});
    tx.commit();
    json::Out o;
    write_token_fields(o, t, device);
    return api::ok(o.done());
}

}  // namespace pouch::cliauth
