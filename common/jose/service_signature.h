// service_signature.h -- the Service-Signature header of a commit (decisions §1): a
// detached-payload ES256 JWS whose payload is BLAKE3-256 of the body's JCS form. The
// caller canonicalises and hashes the body (common/json); this file checks the JWS.
#pragma once

#include <string_view>

#include "common/crypto/es256.h"

namespace pouch::jose {

// True when header_value is `<b64url(header)>..<b64url(R||S)>`, the protected header is a
// strict JSON object with "alg":"ES256" and no members besides alg, kid and typ (kid, when
// present, must be the key's RFC 7638 thumbprint; typ must be a string), and the 64-byte
// signature verifies over `header_b64 "." b64url(body_hash_raw32)` with key.
// body_hash_raw32 must be 32 bytes. The caller answers 401 invalid_signature on false.
bool verify_service_signature(std::string_view header_value, std::string_view body_hash_raw32,
                              const crypto::P256PublicKey& key);

}  // namespace pouch::jose
