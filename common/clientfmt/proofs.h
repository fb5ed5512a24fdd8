// proofs.h -- the client side of the API's two proofs (decisions §1): DPoP proofs
// (RFC 9449 §4.2) for every CLI request, and the Service-Signature of a commit body (a
// detached ES256 JWS over BLAKE3 of the body's JCS form). Shared by `pouch` and pouchctl.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

// A proof for method + url (the query and fragment are dropped for htu); `ath` when an
// access token is given. iat defaults to now, jti to 16 random bytes in b64url.
std::string make_dpop_proof(const crypto::P256PrivateKey& key, std::string_view method,
                            std::string_view url, std::optional<std::string_view> access_token,
                            std::optional<long long> iat = {}, std::optional<std::string> jti = {});

// The Service-Signature header value for a JSON body: strict parse, JCS, BLAKE3-256, then
// `b64url({"alg":"ES256","kid":jkt}) ".." b64url(R||S)`. Throws std::runtime_error (with
// the reason) when the body is not strict JSON or has no exact JCS form.
std::string make_service_signature(const crypto::P256PrivateKey& key, std::string_view body);

}  // namespace pouch::clientfmt
