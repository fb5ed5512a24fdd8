// es256.cpp -- P-256 keys, ES256 verification and low-S on OpenSSL 3 (see es256.h and
// decisions §11, §15): EVP_PKEY_fromdata from the uncompressed point, raw R||S -> DER ->
// EVP_DigestVerify, and n - S with BIGNUMs.
#include "common/crypto/es256.h"

#include <stdexcept>

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

namespace {

// The order n of P-256 and n/2 (rounded down), big-endian.
constexpr unsigned char kOrder[32] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};

Owned<BIGNUM> bn_of(const unsigned char* p, int n) {
    return Owned<BIGNUM>(BN_bin2bn(p, n, nullptr));
}

}  // namespace

bool es256_is_low_s(std::string_view sig_raw64) {
    if (sig_raw64.size() != 64) return false;
    Owned<BIGNUM> s = bn_of(reinterpret_cast<const unsigned char*>(sig_raw64.data()) + 32, 32);
    Owned<BIGNUM> half = bn_of(kOrder, 32);
    if (!s || !half || BN_rshift1(half.get(), half.get()) != 1)
        throw std::runtime_error("ES256 low-S: out of memory");
    return BN_cmp(s.get(), half.get()) <= 0;
}

std::string es256_low_s(std::string_view sig_raw64) {
    if (sig_raw64.size() != 64 || es256_is_low_s(sig_raw64)) return std::string(sig_raw64);
    Owned<BIGNUM> s = bn_of(reinterpret_cast<const unsigned char*>(sig_raw64.data()) + 32, 32);
    Owned<BIGNUM> n = bn_of(kOrder, 32);
    if (!s || !n || BN_sub(s.get(), n.get(), s.get()) != 1)
        throw std::runtime_error("ES256 low-S: out of memory");
    // S > n/2 from a signer is below n, so n - S is positive and fits 32 bytes; an S at or
    // above n (no valid signature has one) is left for the verifier to refuse.
    if (BN_is_negative(s.get()) || BN_is_zero(s.get())) return std::string(sig_raw64);
    std::string out(sig_raw64.substr(0, 32));
    out.resize(64);
    if (BN_bn2binpad(s.get(), reinterpret_cast<unsigned char*>(out.data()) + 32, 32) != 32)
        throw std::runtime_error("ES256 low-S: S wider than 32 bytes");
    return out;
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
