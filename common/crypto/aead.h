// aead.h -- AES-GCM with a 12-byte nonce and a 16-byte tag on OpenSSL's EVP_CIPHER:
// AES-128-GCM for HPKE (RFC 9180 AEAD 0x0001), AES-256-GCM for the client format's
// envelopes, chunks, shares and recovery kits. The output is ciphertext || tag.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pouch::crypto {

constexpr size_t kGcmNonceSize = 12;
constexpr size_t kGcmTagSize = 16;

// key: 16 bytes (AES-128) or 32 bytes (AES-256); nonce: 12 bytes. Throws
// std::invalid_argument on other sizes. prefix: bytes put before the ciphertext in the same
// string (a blob's or an envelope's nonce), so that nonce || ciphertext || tag is written once
// and not copied again.
std::string aes_gcm_seal(std::string_view key, std::string_view nonce, std::string_view aad,
                         std::string_view plaintext, std::string_view prefix = {});

// nullopt when the tag does not verify (wrong key, nonce, aad, or altered bytes) or the
// input is shorter than a tag.
std::optional<std::string> aes_gcm_open(std::string_view key, std::string_view nonce,
                                        std::string_view aad, std::string_view sealed);

}  // namespace pouch::crypto
