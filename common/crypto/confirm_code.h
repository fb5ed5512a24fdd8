// confirm_code.h -- the codes that tie a CLI login to the person's own terminal. v1 (decisions
// §6) is the service's `confirm_code` of the request details; v2 (decisions §15) is what the
// CLI prints and the approval page recomputes from the link's fragment, over a nonce the
// service never sees. Also the key fingerprint both of them show.
#pragma once

#include <string>
#include <string_view>

namespace pouch::crypto {

// v1, "dddd-dddd": first 8 bytes of SHA-256("pouch-confirm-v1" || request_id || sign_jkt) as a
// big-endian unsigned integer, modulo 10^8, zero-padded. Kept for the service, which checks a
// code a client sends under this rule.
std::string confirm_code(std::string_view request_id, std::string_view sign_jkt);

// given must be "12345678" or "1234-5678"; expected is either form too. Constant time in
// the digits.
bool confirm_code_matches(std::string_view given, std::string_view expected);

// The nonce of an approval link: 16 bytes (22 b64url characters in the link).
inline constexpr size_t kConfirmNonceBytes = 16;

// v2, "dddd-dddd-dddd": the first 8 bytes of HKDF-SHA256(ikm = nonce, salt = empty,
// info = "pouch/confirm/v2" || request_id || sign_jkt || enc_jkt, 32 bytes) as a big-endian
// unsigned integer, modulo 10^12, zero-padded to 12 digits. request_id is the canonical
// lower-case UUID text; the jkts are RFC 7638 thumbprints (b64url). Throws
// std::invalid_argument when the nonce is not 16 bytes.
std::string confirm_code_v2(std::string_view nonce, std::string_view request_id,
                            std::string_view sign_jkt, std::string_view enc_jkt);

// The device key fingerprint: the first 16 characters of sign_jkt in four groups of four,
// separated by single spaces ("AbCd EfGh IjKl MnOp"). Throws std::invalid_argument when
// sign_jkt is shorter than 16 characters.
std::string key_fingerprint(std::string_view sign_jkt);

}  // namespace pouch::crypto
