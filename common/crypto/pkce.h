// pkce.h -- PKCE S256 (RFC 7636 §4.2) for the CLI login redeem (decisions §6).
#pragma once

#include <string>
#include <string_view>

namespace pouch::crypto {

// b64url(SHA-256(ASCII(verifier))).
std::string pkce_s256(std::string_view verifier);

// 43..128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1).
bool valid_code_verifier(std::string_view verifier);

}  // namespace pouch::crypto
