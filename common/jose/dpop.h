// dpop.h -- DPoP proof verification (RFC 9449 §4.3, decisions §1): header, embedded jwk,
// signature and claims. The jti replay check is the caller's (it needs Redis/Postgres):
// it uses the returned jkt and jti. Binding to a token's jkt is the caller's too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/crypto/es256.h"

namespace pouch::jose {

struct DpopInput {
    std::string_view proof;       // the one DPoP header value
    std::string_view method;      // "GET", "POST", ... compared exactly with htm
    std::string_view public_url;  // POUCH_PUBLIC_URL, e.g. "https://sync.example.com"
    std::string_view path;        // request path; a query part is ignored
    std::optional<std::string_view> access_token;  // given: ath required; absent: ath refused
    long long now;                                 // unix seconds
};

struct DpopProof {
    std::string jkt;  // RFC 7638 thumbprint of the proof's jwk
    std::string jti;
    long long iat;
    crypto::P256PublicKey key;
};

// Throws Error (Fault::unauthenticated) invalid_dpop_proof; the HTTP edge adds
// WWW-Authenticate: DPoP error="invalid_dpop_proof"
// on any failure; the message names the failed check (never the token).
DpopProof verify_dpop(const DpopInput& in);

// RFC 3986 §6.2.2-3 normalisation used for htu: lower-case scheme and host, default port
// (:80 http, :443 https) and empty port dropped, empty path -> "/", percent-escapes in
// upper case, query and fragment removed. nullopt when not an absolute http(s) URI.
std::optional<std::string> normalize_htu(std::string_view uri);

}  // namespace pouch::jose
