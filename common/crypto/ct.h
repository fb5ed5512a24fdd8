// ct.h -- constant-time comparison of secrets (token hashes, PKCE challenges) with
// OpenSSL's CRYPTO_memcmp, so the time taken does not reveal how many bytes matched.
#pragma once

#include <string_view>

#include <openssl/crypto.h>

namespace pouch::crypto {

// Lengths are not secret here (hashes and b64url of fixed-size values), so a length
// mismatch returns early.
inline bool ct_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace pouch::crypto
