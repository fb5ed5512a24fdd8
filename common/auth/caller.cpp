// caller.cpp -- resolves credentials to a Caller. Only SHA-256 hashes of tokens are looked
// up. A web session ends 30 days after it began (expires_at, absolute) or after 14 days unused
// (last_used_at, moved at most once a minute), whichever comes first (decisions §13).
#include "common/auth/caller.h"

#include <algorithm>

#include "common/auth/dpop_check.h"
#include "common/auth/sql_caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/ct.h"
#include "common/crypto/random.h"
#include "common/http/error.h"

namespace pouch::auth {

namespace {

// The session of `hash`, and with `pouch` the pouch in the same statement.
std::optional<sql::SessionPouchRow> session_row(db::Conn& conn, std::string hash,
                                                const PouchPrefetch* pouch) {
    if (pouch)
        return conn.maybe_one(sql::kSessionWithPouch,
                              {.token_hash = std::move(hash), .pouch_id = pouch->pouch_id});
    std::optional<sql::SessionRow> r = conn.maybe_one(sql::kSessionByHash, {.token_hash = hash});
    if (!r) return std::nullopt;
    sql::SessionPouchRow out;
    static_cast<sql::SessionRow&>(out) = std::move(*r);
    return out;
}

Caller web_caller(const std::string& token, http::Services& s, PouchPrefetch* pouch) {
    if (!has_token_shape(token, "svc_ws_")) throw http::unauthenticated("unknown credentials");
    auto conn = s.db.acquire();
    auto r = session_row(*conn, crypto::token_hash(token), pouch);
    if (!r) throw http::unauthenticated("unknown credentials");
    if (r->expired) throw Error(Code::token_expired, "session expired");
    if (r->stale) conn->run(sql::kTouchSession, {.id = r->id});
    if (pouch) {
        pouch->row = std::move(r->pouch);
        pouch->loaded = true;
    }
    Caller c;
    c.kind = Caller::Kind::web;
    c.session_id = r->id;
    c.user_id = r->user_id;
    c.role = r->role;
    c.account_id = r->account_id;
    c.member_id = r->web_member_id.value_or("");
    return c;
}

// Order matters: a revoked device learns so on its very next request, whatever else is
// wrong; the proof's jti is recorded only once the proof is bound to this token's key.
Caller cli_caller(const http::Request& req, const std::string& token, http::Services& s) {
    if (!has_token_shape(token, "svc_at_")) throw http::unauthenticated("unknown credentials");
    jose::DpopProof proof = check_dpop(req, s, token);
    const std::string hash = crypto::token_hash(token);
    std::optional<sql::AccessTokenRow> r = [&] {
        auto conn = s.db.acquire();
        return conn->maybe_one(sql::kAccessToken, {.token_hash = hash});
    }();
    if (!r) throw http::unauthenticated("unknown credentials");
    if (r->device_revoked) throw Error(Code::device_revoked);
    if (r->token_revoked) throw http::unauthenticated("token has been revoked");
    if (r->expired) throw Error(Code::token_expired);
    if (!crypto::ct_equal(proof.jkt, r->jkt))
        throw dpop_error("DPoP key does not match the token's key");
    record_dpop(proof, s);
    Caller c;
    c.kind = Caller::Kind::cli;
    c.device_id = r->device_id;
    c.member_id = r->member_id;
    c.account_id = r->account_id;
    c.user_id = r->owner_user_id;
    c.role = r->role;
    c.sign_x = r->sign_x;
    c.sign_y = r->sign_y;
    if (r->stale || r->first_use) {
        auto conn = s.db.acquire();
        if (r->stale) conn->run(sql::kTouchDevice, {.id = c.device_id});
        if (r->first_use) conn->run(sql::kMarkAccessTokenUsed, {.token_hash = hash});
    }
    return c;
}

}  // namespace

bool has_token_shape(const std::string& token, const std::string& prefix) {
    return token.size() == prefix.size() + 43 && token.compare(0, prefix.size(), prefix) == 0 &&
           crypto::is_b64url(std::string_view(token).substr(prefix.size()));
}

Caller authenticate(const http::Request& req, http::Services& s, PouchPrefetch* pouch) {
    const std::string& authz = req.header("authorization");
    if (authz.empty()) throw http::unauthenticated();
    size_t sp = authz.find(' ');
    if (sp == std::string::npos) throw http::unauthenticated("malformed Authorization header");
    std::string scheme = authz.substr(0, sp);
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), ::tolower);
    std::string token = authz.substr(sp + 1);
    if (scheme == "bearer") {
        if (token.rfind("svc_at_", 0) == 0)  // RFC 9449 §7.2: a DPoP-bound token is not Bearer
            throw http::unauthenticated("access tokens must be sent with the DPoP scheme");
        return web_caller(token, s, pouch);
    }
    if (scheme == "dpop") return cli_caller(req, token, s);
    throw http::unauthenticated("unsupported authorization scheme");
}

Caller require_web(const http::Request& req, http::Services& s, PouchPrefetch* pouch) {
    Caller c = authenticate(req, s, pouch);
    if (!c.is_web()) throw http::wrong_caller("this operation is for web callers only");
    return c;
}

Caller require_cli(const http::Request& req, http::Services& s) {
    Caller c = authenticate(req, s);
    if (!c.is_cli()) throw http::wrong_caller("this operation is for CLI devices only");
    return c;
}

}  // namespace pouch::auth
