// es256.cpp -- P-256 keys and ES256 verification on OpenSSL 3 (see es256.h and decisions
// §11): EVP_PKEY_fromdata from the uncompressed point, raw R||S -> DER -> EVP_DigestVerify.
#include "common/crypto/es256.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"

namespace pouch::crypto {

namespace {

struct CtxFree {
    void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
    void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
    void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
    void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
    void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
    void operator()(BIGNUM* p) const { BN_free(p); }
    void operator()(unsigned char* p) const { OPENSSL_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, CtxFree>;

// A JWK coordinate of P-256 is exactly 32 bytes, so exactly 43 b64url characters.
std::optional<std::string> decode_coord(std::string_view b64) {
    if (b64.size() != 43) return std::nullopt;
    auto raw = b64url_decode(b64);
    if (!raw || raw->size() != 32) return std::nullopt;
    return raw;
}

}  // namespace

std::optional<P256PublicKey> P256PublicKey::from_jwk(std::string_view x_b64,
                                                     std::string_view y_b64) {
    auto x = decode_coord(x_b64);
    auto y = decode_coord(y_b64);
    if (!x || !y) return std::nullopt;
    std::string point = "\x04" + *x + *y;

    Owned<OSSL_PARAM_BLD> bld(OSSL_PARAM_BLD_new());
    if (!bld) return std::nullopt;
    static char group[] = "prime256v1";
    if (OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                         point.size()) != 1)
        return std::nullopt;
    Owned<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(bld.get()));
    Owned<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) return std::nullopt;
    EVP_PKEY* raw_key = nullptr;
    // fromdata decodes the point onto the curve and fails for an off-curve point.
    if (EVP_PKEY_fromdata(ctx.get(), &raw_key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1 ||
        raw_key == nullptr)
        return std::nullopt;

    P256PublicKey k;
    k.key_.reset(raw_key, EVP_PKEY_free);
    // Belt and braces: a full public-key check (on curve, not infinity, right order).
    Owned<EVP_PKEY_CTX> check(EVP_PKEY_CTX_new_from_pkey(nullptr, raw_key, nullptr));
    if (!check || EVP_PKEY_public_check(check.get()) != 1) return std::nullopt;
    k.x_ = std::string(x_b64);
    k.y_ = std::string(y_b64);
    return k;
}

bool P256PublicKey::verify(std::string_view msg, std::string_view sig_raw64) const {
    if (!key_ || sig_raw64.size() != 64) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(sig_raw64.data());
    Owned<BIGNUM> r(BN_bin2bn(p, 32, nullptr));
    Owned<BIGNUM> s(BN_bin2bn(p + 32, 32, nullptr));
    Owned<ECDSA_SIG> sig(ECDSA_SIG_new());
    if (!r || !s || !sig) return false;
    if (ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return false;
    r.release();  // now owned by sig
    s.release();
    unsigned char* der_raw = nullptr;
    int der_len = i2d_ECDSA_SIG(sig.get(), &der_raw);
    if (der_len <= 0) return false;
    Owned<unsigned char> der(der_raw);

    Owned<EVP_MD_CTX> md(EVP_MD_CTX_new());
    if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1)
        return false;
    // 1 is valid; 0 is a bad signature and negative an error -- both are "no".
    return EVP_DigestVerify(md.get(), der.get(), static_cast<size_t>(der_len),
                            reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) == 1;
}

std::string P256PublicKey::thumbprint() const {
    return jwk_thumbprint(x_, y_);
}

std::string jwk_thumbprint(std::string_view x_b64, std::string_view y_b64) {
    // RFC 7638 §3.2: required members only, lexicographic order, no whitespace. x and y
    // are b64url, so they need no JSON escaping.
    std::string canon = R"({"crv":"P-256","kty":"EC","x":")";
    canon += x_b64;
    canon += R"(","y":")";
    canon += y_b64;
    canon += R"("})";
    return b64url_encode(sha256(canon));
}

}  // namespace pouch::crypto
