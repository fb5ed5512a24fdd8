// dpop_check.cpp -- DPoP header extraction, verification and replay recording.
#include "common/auth/dpop_check.h"

#include <ctime>

#include "common/auth/replay_cache.h"
#include "common/http/error.h"

namespace pouch::auth {

Error dpop_error(std::string message) {
    return Error(Code::invalid_dpop_proof, std::move(message))
        .with_header("WWW-Authenticate", "DPoP error=\"invalid_dpop_proof\"");
}

jose::DpopProof check_dpop(const http::Request& req, http::Services& s,
                           std::optional<std::string_view> access_token) {
    const std::string& proof = req.header("dpop");
    if (proof.empty()) throw dpop_error("a DPoP proof is required");
    // Two DPoP headers arrive joined by ", "; a JWS never contains a comma.
    if (proof.find(',') != std::string::npos) throw dpop_error("exactly one DPoP header allowed");
    jose::DpopInput in{proof,    req.method,   s.config.public_url,
                       req.path, access_token, static_cast<long long>(std::time(nullptr))};
    try {
        return jose::verify_dpop(in);
    } catch (const Error& e) {  // crypto knows no HTTP: the challenge header is added here
        throw dpop_error(e.message);
    }
}

void record_dpop(const jose::DpopProof& proof, http::Services& s) {
    if (!s.replay.first_use(proof.jkt, proof.jti)) throw dpop_error("DPoP proof was already used");
}

jose::DpopProof require_dpop(const http::Request& req, http::Services& s,
                             std::optional<std::string_view> access_token) {
    jose::DpopProof p = check_dpop(req, s, access_token);
    record_dpop(p, s);
    return p;
}

}  // namespace pouch::auth
