// random.h -- secrets and identifiers from OpenSSL's CSPRNG (RAND_bytes): bearer tokens
// (decisions §1: prefix + b64url of 32 random bytes), their stored SHA-256, UUIDv4.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pouch::crypto {

// n random bytes; throws std::runtime_error if the CSPRNG fails (never returns weak bytes).
std::string random_bytes(size_t n);

// prefix + b64url(32 random bytes), e.g. new_token("svc_ws_") -> "svc_ws_<43 chars>".
std::string new_token(std::string_view prefix);

// b64url(SHA-256(token)): the only form of a token the database stores.
std::string token_hash(std::string_view token);

// Random (version 4) UUID, lower-case canonical 8-4-4-4-12.
std::string uuid_v4();

}  // namespace pouch::crypto
