// confirm_code.h -- the 8-digit code that the CLI and the approval page both show for a
// login request (decisions §6), so the user can see they approve their own terminal.
#pragma once

#include <string>
#include <string_view>

namespace pouch::crypto {

// "dddd-dddd": first 8 bytes of SHA-256("pouch-confirm-v1" || request_id || sign_jkt) as a
// big-endian unsigned integer, modulo 10^8, zero-padded.
std::string confirm_code(std::string_view request_id, std::string_view sign_jkt);

// given must be "12345678" or "1234-5678"; expected is either form too. Constant time in
// the digits.
bool confirm_code_matches(std::string_view given, std::string_view expected);

}  // namespace pouch::crypto
