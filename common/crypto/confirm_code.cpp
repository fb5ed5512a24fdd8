// confirm_code.cpp -- confirm code derivation and comparison (see confirm_code.h).
#include "common/crypto/confirm_code.h"

#include <cstdint>
#include <cstdio>
#include <optional>

#include "common/crypto/ct.h"
#include "common/crypto/hash.h"

namespace pouch::crypto {

namespace {

bool all_digits(std::string_view s) {
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// The 8 digits of "12345678" or "1234-5678"; nullopt for anything else.
std::optional<std::string> digits_of(std::string_view s) {
    if (s.size() == 8 && all_digits(s)) return std::string(s);
    if (s.size() == 9 && s[4] == '-' && all_digits(s.substr(0, 4)) && all_digits(s.substr(5)))
        return std::string(s.substr(0, 4)) + std::string(s.substr(5));
    return std::nullopt;
}

}  // namespace

std::string confirm_code(std::string_view request_id, std::string_view sign_jkt) {
    std::string input = "pouch-confirm-v1";
    input += request_id;
    input += sign_jkt;
    std::string h = sha256(input);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | static_cast<unsigned char>(h[i]);
    v %= 100000000ULL;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04u-%04u", static_cast<unsigned>(v / 10000),
                  static_cast<unsigned>(v % 10000));
    return buf;
}

bool confirm_code_matches(std::string_view given, std::string_view expected) {
    auto g = digits_of(given);
    auto e = digits_of(expected);
    if (!g || !e) return false;
    return ct_equal(*g, *e);
}

}  // namespace pouch::crypto
