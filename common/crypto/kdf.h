// kdf.h -- HMAC-SHA256 and HKDF-SHA256 (RFC 5869) on OpenSSL 3's EVP_MAC and EVP_KDF, the
// building blocks of HPKE (RFC 9180 §4) and of the client format's key derivations.
#pragma once

#include <string>
#include <string_view>

namespace pouch::crypto {

std::string hmac_sha256(std::string_view key, std::string_view msg);  // 32 raw bytes

// HKDF-Extract(salt, ikm): the 32-byte PRK. An empty salt means HashLen zero bytes (RFC 5869
// §2.2), which OpenSSL applies when no salt is given.
std::string hkdf_extract(std::string_view salt, std::string_view ikm);

// HKDF-Expand(prk, info, length), length <= 255 * 32. Throws std::runtime_error on failure.
std::string hkdf_expand(std::string_view prk, std::string_view info, size_t length);

// Extract then Expand: HKDF-SHA256(ikm, salt, info) with `length` output bytes.
std::string hkdf_sha256(std::string_view ikm, std::string_view salt, std::string_view info,
                        size_t length);

}  // namespace pouch::crypto
