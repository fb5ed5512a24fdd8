// random.cpp -- token and UUID generation on OpenSSL RAND_bytes (see random.h).
#include "common/crypto/random.h"

#include <climits>
#include <stdexcept>

#include <openssl/rand.h>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"

namespace pouch::crypto {

std::string random_bytes(size_t n) {
    std::string out(n, '\0');
    if (n == 0) return out;
    if (n > INT_MAX) throw std::invalid_argument("random_bytes: size too large");
    if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
        throw std::runtime_error("random_bytes: RAND_bytes failed");
    return out;
}

std::string new_token(std::string_view prefix) {
    std::string t(prefix);
    t += b64url_encode(random_bytes(32));
    return t;
}

std::string token_hash(std::string_view token) {
    return b64url_encode(sha256(token));
}

std::string uuid_v4() {
    std::string b = random_bytes(16);
    b[6] = static_cast<char>((b[6] & 0x0F) | 0x40);  // version 4
    b[8] = static_cast<char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
    std::string hex = to_hex(b);
    return hex.substr(0, 8) + '-' + hex.substr(8, 4) + '-' + hex.substr(12, 4) + '-' +
           hex.substr(16, 4) + '-' + hex.substr(20, 12);
}

}  // namespace pouch::crypto
