// token.cpp -- POST /v1/cli-auth/token (op 6): the CLI redeems its approved login with the
// PKCE verifier and a DPoP proof of the key it started with. While the request is pending
// it long-polls up to `wait` seconds holding no thread and no database connection (the
// request is parked: common/http/parking.h). A wrong verifier or proof changes nothing.
#include <chrono>

#include "common/auth/dpop_check.h"
#include "common/crypto/ct.h"
#include "common/crypto/pkce.h"
#include "common/wakeup/wakeup.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

Error invalid_grant(const std::string& message) {
    return Error(Code::invalid_grant, message);
}

http::Response pending() {
    return api::ok(json::to_json(PendingAnswer{.interval = kPollInterval}));
}

http::Response redeem(http::Services& s, const std::string& id, const std::string& jkt) {
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    auto red = conn->maybe_one(sql::kRedeem, {.id = id});
    if (!red) {  // raced with another redeem, or expired meanwhile
        rules::LoginStep step = rules::transition(
            login_state(conn->one(sql::kRequestStatus, {.id = id}).status),
            rules::LoginEvent::redeem);
        if (step.refusal) throw *step.refusal;
        throw invalid_grant("the login was already redeemed");
    }
    sql::DeviceForTokens device = conn->one(sql::kDeviceForTokens, {.id = red->device_id});
    // Revoked between approval and redemption: tokens would be refused on first use, so
    // none are issued (the rollback leaves the request approved; every retry answers this).
    if (device.revoked)
        throw Error(Code::access_denied, "the device was revoked before the login was redeemed");
    TokenPair t = issue_tokens(*conn, device.id, jkt);
    tx.commit();
    return api::ok(json::to_json(RedeemedAnswer{token_answer(t, device), device.welcome}));
}

rules::LoginState current_state(http::Services& s, const std::string& id) {
    auto conn = s.db.acquire();
    return login_state(conn->one(sql::kRequestStatus, {.id = id}).status);
}

// What a token request gets from a request in `state` (common/rules/login.h): redeemed tokens,
// std::nullopt while pending (the caller waits or answers pending), or the refusal thrown.
std::optional<http::Response> answer(http::Services& s, const std::string& id,
                                     const std::string& jkt, rules::LoginState state) {
    rules::LoginStep step = rules::transition(state, rules::LoginEvent::redeem);
    if (step.refusal) throw *step.refusal;
    if (step.kind == rules::LoginStep::Kind::wait) return std::nullopt;
    return redeem(s, id, jkt);
}

}  // namespace

http::Response token(api::Call& call, const TokenRequest& body) {
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const std::string& id = body.request_id;
    int wait = body.wait.value_or(0);

    const std::string channel = wakeup::channel(wakeup::Topic::login, id);
    std::uint64_t seen = s.parking ? s.parking->stamp(channel) : 0;  // before the read
    std::optional<sql::RequestForToken> r = [&] {
        auto conn = s.db.acquire();
        return conn->maybe_one(sql::kRequestForToken, {.id = id});
    }();
    if (!r) throw invalid_grant("unknown login request");
    if (!crypto::ct_equal(proof.jkt, r->sign_jkt))
        throw auth::dpop_error("the DPoP key is not the one that started the login");
    if (!crypto::ct_equal(crypto::pkce_s256(body.code_verifier), r->code_challenge))
        throw invalid_grant("code_verifier does not match code_challenge");
    const rules::LoginState state = login_state(r->status);
    const bool pending_now = state == rules::LoginState::pending;
    if (pending_now) {
        if (wait == 0 && r->too_soon)
            throw Error(Code::slow_down).with_header("Retry-After", std::to_string(kPollInterval));
        auto conn = s.db.acquire();
        conn->run(sql::kTouchPoll, {.id = id});
    }
    if (pending_now && wait > 0) {
        auto lp = std::make_shared<http::LongPoll>();
        lp->channel = channel;
        lp->seen = seen;
        lp->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait);
        // One parked wait per login request: a second one answers the first (decisions §13).
        lp->exclusive_key = id;
        lp->superseded = Error(Code::slow_down, "another wait on this login request took its place")
                             .with_header("Retry-After", std::to_string(kPollInterval));
        lp->poll = [&s, id, jkt = proof.jkt](bool final) -> std::optional<http::Response> {
            if (auto done = answer(s, id, jkt, current_state(s, id))) return done;
            return final ? std::optional<http::Response>(pending()) : std::nullopt;
        };
        http::Response parked;
        parked.long_poll = std::move(lp);
        return parked;
    }
    if (auto done = answer(s, id, proof.jkt, state)) return *done;
    return pending();
}

}  // namespace pouch::cliauth
