// hash.cpp -- SHA-256 through OpenSSL's one-shot EVP_Digest, BLAKE3 through the C sources
// the Makefile builds from Debian's librust-blake3-dev.
#include "common/crypto/hash.h"

#include <stdexcept>

#include <openssl/evp.h>

namespace pouch::crypto {

std::string sha256(std::string_view data) {
    std::string out(32, '\0');
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), &len,
                   EVP_sha256(), nullptr) != 1 ||
        len != 32)
        throw std::runtime_error("sha256: EVP_Digest failed");
    return out;
}

std::string blake3_256(std::string_view data) {
    Blake3Hasher h;
    h.update(data);
    return h.finish();
}

Blake3Hasher::Blake3Hasher() {
    blake3_hasher_init(&h_);
}

void Blake3Hasher::update(std::string_view data) {
    blake3_hasher_update(&h_, data.data(), data.size());
}

std::string Blake3Hasher::finish() const {
    std::string out(BLAKE3_OUT_LEN, '\0');
    blake3_hasher_finalize(&h_, reinterpret_cast<uint8_t*>(out.data()), out.size());
    return out;
}

std::string to_hex(std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 15];
    }
    return out;
}

}  // namespace pouch::crypto
