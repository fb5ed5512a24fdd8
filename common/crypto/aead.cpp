// aead.cpp -- AES-GCM seal/open (aead.h) on EVP_EncryptInit_ex2 / EVP_DecryptInit_ex2 with
// the tag set and read through EVP_CIPHER_CTX_ctrl.
#include "common/crypto/aead.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

#include <openssl/err.h>
#include <openssl/evp.h>

namespace pouch::crypto {
namespace {

struct CtxFree {
    void operator()(EVP_CIPHER_CTX* p) const { EVP_CIPHER_CTX_free(p); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

const EVP_CIPHER* cipher_for(std::string_view key, std::string_view nonce) {
    if (nonce.size() != kGcmNonceSize)
        throw std::invalid_argument("AES-GCM nonce must be 12 bytes");
    if (key.size() == 16) return EVP_aes_128_gcm();
    if (key.size() == 32) return EVP_aes_256_gcm();
    throw std::invalid_argument("AES-GCM key must be 16 or 32 bytes");
}

const unsigned char* u(std::string_view s) {
    return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* u(std::string& s) {
    return reinterpret_cast<unsigned char*>(s.data());
}

// EVP_*Update take an int length; larger inputs go through in pieces.
constexpr size_t kStep = size_t{1} << 30;

}  // namespace

std::string aes_gcm_seal(std::string_view key, std::string_view nonce, std::string_view aad,
                         std::string_view plaintext, std::string_view prefix) {
    const EVP_CIPHER* cipher = cipher_for(key, nonce);
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    if (!ctx || EVP_EncryptInit_ex2(ctx.get(), cipher, u(key), u(nonce), nullptr) != 1)
        throw std::runtime_error("AES-GCM init failed");
    for (size_t off = 0; off < aad.size(); off += kStep) {
        size_t n = std::min(kStep, aad.size() - off);
        if (EVP_EncryptUpdate(ctx.get(), nullptr, &len, u(aad) + off, static_cast<int>(n)) != 1)
            throw std::runtime_error("AES-GCM aad failed");
    }
    std::string out(prefix.size() + plaintext.size() + kGcmTagSize, '\0');
    std::copy(prefix.begin(), prefix.end(), out.begin());
    size_t written = prefix.size();
    for (size_t off = 0; off < plaintext.size(); off += kStep) {
        size_t n = std::min(kStep, plaintext.size() - off);
        if (EVP_EncryptUpdate(ctx.get(), u(out) + written, &len, u(plaintext) + off,
                              static_cast<int>(n)) != 1)
            throw std::runtime_error("AES-GCM encrypt failed");
        written += static_cast<size_t>(len);
    }
    if (EVP_EncryptFinal_ex(ctx.get(), u(out) + written, &len) != 1)
        throw std::runtime_error("AES-GCM final failed");
    written += static_cast<size_t>(len);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kGcmTagSize),
                            u(out) + written) != 1)
        throw std::runtime_error("AES-GCM tag failed");
    out.resize(written + kGcmTagSize);
    return out;
}

std::optional<std::string> aes_gcm_open(std::string_view key, std::string_view nonce,
                                        std::string_view aad, std::string_view sealed) {
    const EVP_CIPHER* cipher = cipher_for(key, nonce);
    if (sealed.size() < kGcmTagSize) return std::nullopt;
    std::string_view ct = sealed.substr(0, sealed.size() - kGcmTagSize);
    std::string tag(sealed.substr(ct.size()));
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    if (!ctx || EVP_DecryptInit_ex2(ctx.get(), cipher, u(key), u(nonce), nullptr) != 1)
        throw std::runtime_error("AES-GCM init failed");
    for (size_t off = 0; off < aad.size(); off += kStep) {
        size_t n = std::min(kStep, aad.size() - off);
        if (EVP_DecryptUpdate(ctx.get(), nullptr, &len, u(aad) + off, static_cast<int>(n)) != 1)
            return std::nullopt;
    }
    std::string out(ct.size() + kGcmTagSize, '\0');
    size_t written = 0;
    for (size_t off = 0; off < ct.size(); off += kStep) {
        size_t n = std::min(kStep, ct.size() - off);
        if (EVP_DecryptUpdate(ctx.get(), u(out) + written, &len, u(ct) + off,
                              static_cast<int>(n)) != 1)
            return std::nullopt;
        written += static_cast<size_t>(len);
    }
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kGcmTagSize),
                            u(tag)) != 1 ||
        EVP_DecryptFinal_ex(ctx.get(), u(out) + written, &len) != 1) {
        ERR_clear_error();
        return std::nullopt;
    }
    written += static_cast<size_t>(len);
    out.resize(written);
    return out;
}

}  // namespace pouch::crypto
