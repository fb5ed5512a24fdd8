// kdf.cpp -- HMAC-SHA256 (EVP_MAC "HMAC") and HKDF-SHA256 (EVP_KDF "HKDF" in its
// EXTRACT_ONLY and EXPAND_ONLY modes) for kdf.h.
#include "common/crypto/kdf.h"

#include <memory>
#include <stdexcept>
#include <vector>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

namespace pouch::crypto {
namespace {

struct Free {
    void operator()(EVP_KDF* p) const { EVP_KDF_free(p); }
    void operator()(EVP_KDF_CTX* p) const { EVP_KDF_CTX_free(p); }
    void operator()(EVP_MAC* p) const { EVP_MAC_free(p); }
    void operator()(EVP_MAC_CTX* p) const { EVP_MAC_CTX_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

void* ptr(std::string_view s) {
    return const_cast<char*>(s.data());
}

std::string run_hkdf(int mode, std::string_view key, std::string_view salt, std::string_view info,
                     size_t length) {
    Owned<EVP_KDF> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
    Owned<EVP_KDF_CTX> ctx(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
    if (!ctx) throw std::runtime_error("HKDF is not available");
    char digest[] = "SHA256";
    std::vector<OSSL_PARAM> params;
    params.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0));
    params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode));
    params.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, ptr(key), key.size()));
    if (!salt.empty())
        params.push_back(
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, ptr(salt), salt.size()));
    if (!info.empty())
        params.push_back(
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, ptr(info), info.size()));
    params.push_back(OSSL_PARAM_construct_end());
    std::string out(length, '\0');
    if (EVP_KDF_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), out.size(),
                       params.data()) != 1) {
        ERR_clear_error();
        throw std::runtime_error("HKDF failed");
    }
    return out;
}

}  // namespace

std::string hmac_sha256(std::string_view key, std::string_view msg) {
    Owned<EVP_MAC> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
    Owned<EVP_MAC_CTX> ctx(mac ? EVP_MAC_CTX_new(mac.get()) : nullptr);
    if (!ctx) throw std::runtime_error("HMAC is not available");
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    // EVP_MAC_init refuses a NULL key pointer even for length 0; any valid pointer does.
    static const unsigned char kEmpty = 0;
    const unsigned char* k =
        key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
    std::string out(32, '\0');
    size_t len = 0;
    if (EVP_MAC_init(ctx.get(), k, key.size(), params) != 1 ||
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) !=
            1 ||
        EVP_MAC_final(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len, out.size()) !=
            1 ||
        len != 32) {
        ERR_clear_error();
        throw std::runtime_error("HMAC-SHA256 failed");
    }
    return out;
}

std::string hkdf_extract(std::string_view salt, std::string_view ikm) {
    return run_hkdf(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, ikm, salt, {}, 32);
}

std::string hkdf_expand(std::string_view prk, std::string_view info, size_t length) {
    if (length == 0 || length > 255 * 32)
        throw std::runtime_error("HKDF-Expand length out of range");
    return run_hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk, {}, info, length);
}

std::string hkdf_sha256(std::string_view ikm, std::string_view salt, std::string_view info,
                        size_t length) {
    return hkdf_expand(hkdf_extract(salt, ikm), info, length);
}

}  // namespace pouch::crypto
