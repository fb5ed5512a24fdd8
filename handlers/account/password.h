// password.h -- Argon2id password hashing through libsodium (decisions §4): INTERACTIVE
// limits, at most POUCH_ARGON2_PARALLEL hashes at once per process, and a dummy verify for
// unknown emails so a failed login costs the same whether or not the email exists.
#pragma once

#include <string>

namespace pouch::account {

void password_init(int max_parallel);  // once, before serving
std::string password_hash(const std::string& password);
bool password_verify(const std::string& stored_hash, const std::string& password);
void password_burn(const std::string& password);  // the same work as a failed verify

}  // namespace pouch::account
