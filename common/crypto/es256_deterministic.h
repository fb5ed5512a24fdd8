// es256_deterministic.h -- ES256 with a nonce derived from the key and the message instead of
// drawn at random (the idea of RFC 6979, with HMAC-SHA256 in a simpler loop), for statements
// the service must sign identically on every call: the lookup's stand-ins (docs/SHARING.md §2).
// The signature is an ordinary ES256 one (R||S, low-S) that any verifier accepts.
#pragma once

#include <string>
#include <string_view>

#include "common/crypto/p256_private.h"

namespace pouch::crypto {

// k = the first HMAC-SHA256(d, "pouch/es256-deterministic/v1" || u8(i) || SHA-256(msg)),
// i = 0, 1, ..., that is a scalar in [1, n-1]; then r = (kG).x mod n, s = k^-1 (z + r d) mod n,
// S made low. The same key and message always give the same 64 bytes.
std::string sign_es256_deterministic(const P256PrivateKey& key, std::string_view msg);

}  // namespace pouch::crypto
