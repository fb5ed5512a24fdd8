// crypto_test_util.cpp -- signing helpers for tests (see crypto_test_util.h), OpenSSL 3
// EVP keygen/sign and d2i_ECDSA_SIG to get R and S out of DER.
#include "tests/unit/crypto_test_util.h"

#include <stdexcept>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>

#include "common/crypto/b64url.h"

namespace pouch::testutil {

namespace {

[[noreturn]] void die(const char* what) {
    throw std::runtime_error(what);
}

std::string bn_fixed32(const BIGNUM* bn) {
    std::string out(32, '\0');
    if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), 32) != 32)
        die("BN_bn2binpad");
    return out;
}

std::string bn_param(EVP_PKEY* k, const char* name) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(k, name, &bn) != 1) die("EVP_PKEY_get_bn_param");
    std::unique_ptr<BIGNUM, decltype(&BN_free)> owner(bn, BN_free);
    return bn_fixed32(bn);
}

}  // namespace

TestP256Key::TestP256Key() {
    EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    if (!raw) die("EVP_PKEY_Q_keygen");
    key_.reset(raw, EVP_PKEY_free);
    x_ = crypto::b64url_encode(bn_param(raw, OSSL_PKEY_PARAM_EC_PUB_X));
    y_ = crypto::b64url_encode(bn_param(raw, OSSL_PKEY_PARAM_EC_PUB_Y));
    d_ = crypto::b64url_encode(bn_param(raw, OSSL_PKEY_PARAM_PRIV_KEY));
}

crypto::P256PublicKey TestP256Key::public_key() const {
    auto k = crypto::P256PublicKey::from_jwk(x_, y_);
    if (!k) die("generated key rejected by from_jwk");
    return *k;
}

std::string TestP256Key::jkt() const {
    return crypto::jwk_thumbprint(x_, y_);
}

std::string TestP256Key::jwk_json() const {
    return R"({"kty":"EC","crv":"P-256","x":")" + x_ + R"(","y":")" + y_ + R"("})";
}

std::string TestP256Key::sign_der(std::string_view msg) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1)
        die("EVP_DigestSignInit");
    size_t len = 0;
    const auto* m = reinterpret_cast<const unsigned char*>(msg.data());
    if (EVP_DigestSign(ctx.get(), nullptr, &len, m, msg.size()) != 1) die("EVP_DigestSign size");
    std::string sig(len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, m,
                       msg.size()) != 1)
        die("EVP_DigestSign");
    sig.resize(len);
    return sig;
}

std::string TestP256Key::sign_raw(std::string_view msg) const {
    return der_to_raw64(sign_der(msg));
}

std::string der_to_raw64(std::string_view der) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(
        d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())), ECDSA_SIG_free);
    if (!sig) die("d2i_ECDSA_SIG");
    return bn_fixed32(ECDSA_SIG_get0_r(sig.get())) + bn_fixed32(ECDSA_SIG_get0_s(sig.get()));
}

std::string make_jws(const TestP256Key& key, std::string_view header_json,
                     std::string_view payload) {
    std::string input = crypto::b64url_encode(header_json) + "." + crypto::b64url_encode(payload);
    return input + "." + crypto::b64url_encode(key.sign_raw(input));
}

std::string make_detached_jws(const TestP256Key& key, std::string_view header_json,
                              std::string_view payload_b64) {
    std::string h = crypto::b64url_encode(header_json);
    std::string input = h + "." + std::string(payload_b64);
    return h + ".." + crypto::b64url_encode(key.sign_raw(input));
}

std::string dpop_claims_json(const DpopClaims& c) {
    std::string j = R"({"jti":")" + c.jti + R"(","htm":")" + c.htm + R"(","htu":")" + c.htu +
                    R"(","iat":)" + std::to_string(c.iat);
    if (c.ath) j += R"(,"ath":")" + *c.ath + "\"";
    return j + "}";
}

std::string make_dpop(const TestP256Key& key, const DpopClaims& claims,
                      std::optional<std::string> header_json) {
    std::string header = header_json
                             ? *header_json
                             : R"({"typ":"dpop+jwt","alg":"ES256","jwk":)" + key.jwk_json() + "}";
    return make_jws(key, header, dpop_claims_json(claims));
}

}  // namespace pouch::testutil
