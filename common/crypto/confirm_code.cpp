// confirm_code.cpp -- confirm code derivations, their comparison and the key fingerprint
// (see confirm_code.h).
#include "common/crypto/confirm_code.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "common/crypto/ct.h"
#include "common/crypto/hash.h"
#include "common/crypto/kdf.h"

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

uint64_t u64be(std::string_view b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | static_cast<unsigned char>(b[static_cast<size_t>(i)]);
    return v;
}

}  // namespace

std::string confirm_code(std::string_view request_id, std::string_view sign_jkt) {
    std::string input = "pouch-confirm-v1";
    input += request_id;
    input += sign_jkt;
    uint64_t v = u64be(sha256(input)) % 100000000ULL;
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

std::string confirm_code_v2(std::string_view nonce, std::string_view request_id,
                            std::string_view sign_jkt, std::string_view enc_jkt) {
    if (nonce.size() != kConfirmNonceBytes)
        throw std::invalid_argument("the confirm nonce must be 16 bytes");
    std::string info = "pouch/confirm/v2";
    info += request_id;
    info += sign_jkt;
    info += enc_jkt;
    uint64_t v = u64be(hkdf_sha256(nonce, "", info, 32)) % 1000000000000ULL;
    char buf[20];
    std::snprintf(buf, sizeof buf, "%04u-%04u-%04u", static_cast<unsigned>(v / 100000000ULL),
                  static_cast<unsigned>(v / 10000 % 10000), static_cast<unsigned>(v % 10000));
    return buf;
}

std::string key_fingerprint(std::string_view sign_jkt) {
    if (sign_jkt.size() < 16) throw std::invalid_argument("a thumbprint has 43 characters");
    std::string out;
    for (size_t i = 0; i < 16; i += 4) {
        if (i) out += ' ';
        out += sign_jkt.substr(i, 4);
    }
    return out;
}

}  // namespace pouch::crypto
