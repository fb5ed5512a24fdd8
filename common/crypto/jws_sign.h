// jws_sign.h -- producing ES256 JWS compact serializations with a client's private key:
// attached `h.p.s` (DPoP proofs) and detached `h..s` (Service-Signature, RFC 7515 App. F).
#pragma once

#include <string>
#include <string_view>

#include "common/crypto/p256_private.h"

namespace pouch::crypto {

// b64url(header) "." b64url(payload) "." b64url(R||S)
std::string jws_compact(const P256PrivateKey& key, std::string_view header_json,
                        std::string_view payload);

// b64url(header) ".." b64url(R||S), signed over b64url(header) "." payload_b64.
std::string jws_detached(const P256PrivateKey& key, std::string_view header_json,
                         std::string_view payload_b64);

}  // namespace pouch::crypto
