// crypto_es256_test.cpp -- P-256 key import from JWK coordinates, raw R||S ES256
// verification of both S forms, and the low-S signatures signers give, with keys and
// signatures made here by OpenSSL (crypto_test_util, P256PrivateKey).
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/p256_private.h"
#include "tests/unit/crypto_test_util.h"

using namespace pouch::crypto;
using pouch::testutil::TestP256Key;

namespace {
constexpr const char* kRfcX = "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs";
constexpr const char* kRfcY = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA";
}  // namespace

TEST(CryptoEs256, ThumbprintMatchesRfc9449Vector) {
    EXPECT_EQ(jwk_thumbprint(kRfcX, kRfcY), "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
    auto key = P256PublicKey::from_jwk(kRfcX, kRfcY);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->thumbprint(), "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
    EXPECT_EQ(key->x(), kRfcX);
    EXPECT_EQ(key->y(), kRfcY);
}

TEST(CryptoEs256, VerifiesRawSignatureOfGeneratedKey) {
    TestP256Key k;
    auto pub = k.public_key();
    std::string sig = k.sign_raw("hello pouch");
    ASSERT_EQ(sig.size(), 64u);
    EXPECT_TRUE(pub.verify("hello pouch", sig));
}

TEST(CryptoEs256, RejectsTamperedMessageAndSignature) {
    TestP256Key k;
    auto pub = k.public_key();
    std::string sig = k.sign_raw("hello pouch");
    EXPECT_FALSE(pub.verify("hello pouch!", sig));
    EXPECT_FALSE(pub.verify("Hello pouch", sig));
    std::string bad = sig;
    bad[10] ^= 1;
    EXPECT_FALSE(pub.verify("hello pouch", bad));
    bad = sig;
    bad[63] ^= 0x80;
    EXPECT_FALSE(pub.verify("hello pouch", bad));
}

TEST(CryptoEs256, RejectsSignatureOfAnotherKey) {
    TestP256Key k1, k2;
    EXPECT_FALSE(k2.public_key().verify("m", k1.sign_raw("m")));
}

TEST(CryptoEs256, RejectsDerAndWrongLengthSignatures) {
    TestP256Key k;
    auto pub = k.public_key();
    std::string der = k.sign_der("m");
    EXPECT_FALSE(pub.verify("m", der));
    std::string raw = k.sign_raw("m");
    EXPECT_FALSE(pub.verify("m", raw.substr(0, 63)));
    EXPECT_FALSE(pub.verify("m", raw + '\0'));
    EXPECT_FALSE(pub.verify("m", std::string(1, '\0') + raw));
    EXPECT_FALSE(pub.verify("m", ""));
    EXPECT_FALSE(pub.verify("m", std::string(64, '\0')));  // r = s = 0
}

TEST(CryptoEs256, RejectsOffCurvePoint) {
    TestP256Key k;
    auto y = *b64url_decode(k.y());
    y[31] ^= 1;
    EXPECT_FALSE(P256PublicKey::from_jwk(k.x(), b64url_encode(y)));
    std::string zero = b64url_encode(std::string(32, '\0'));
    EXPECT_FALSE(P256PublicKey::from_jwk(zero, zero));  // (0,0) is not on P-256
    std::string ff = b64url_encode(std::string(32, '\xff'));
    EXPECT_FALSE(P256PublicKey::from_jwk(ff, k.y()));  // coordinate above the field prime
    EXPECT_FALSE(p256_on_curve(k.x(), b64url_encode(y)));
    EXPECT_TRUE(p256_on_curve(k.x(), k.y()));
}

TEST(CryptoEs256, RejectsWrongLengthOrMalformedCoordinates) {
    TestP256Key k;
    EXPECT_FALSE(P256PublicKey::from_jwk(k.x().substr(0, 42), k.y()));
    EXPECT_FALSE(P256PublicKey::from_jwk(k.x(), k.y() + "A"));
    EXPECT_FALSE(P256PublicKey::from_jwk("", ""));
    // 44 chars would be 33 bytes; 31 bytes encodes to 42 chars.
    EXPECT_FALSE(P256PublicKey::from_jwk(b64url_encode(std::string(33, '\1')), k.y()));
    EXPECT_FALSE(P256PublicKey::from_jwk(b64url_encode(std::string(31, '\1')), k.y()));
    std::string padded = k.x().substr(0, 42) + "=";
    EXPECT_FALSE(P256PublicKey::from_jwk(padded, k.y()));
    std::string std_alphabet = k.x();
    std_alphabet[0] = '+';
    EXPECT_FALSE(P256PublicKey::from_jwk(std_alphabet, k.y()));
    // The last char of a 32-byte value carries 2 unused bits; set them.
    std::string noncanon = k.x();
    const std::string alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    noncanon[42] = alpha[alpha.find(noncanon[42]) | 1];
    EXPECT_FALSE(P256PublicKey::from_jwk(noncanon, k.y()));
}

TEST(CryptoEs256, GeneratedKeyThumbprintIsB64urlSha256Of32Bytes) {
    TestP256Key k;
    auto pub = k.public_key();
    EXPECT_EQ(pub.thumbprint(), k.jkt());
    EXPECT_EQ(pub.thumbprint().size(), 43u);
}

namespace {

// n - S of a raw R||S, by hand (big-endian subtraction), to test es256_low_s against.
std::string mirror_s(const std::string& raw) {
    static const unsigned char n[32] = {
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
        0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
    std::string out = raw;
    int borrow = 0;
    for (int i = 31; i >= 0; --i) {
        int d = n[i] - static_cast<unsigned char>(raw[32 + i]) - borrow;
        borrow = d < 0;
        out[32 + i] = static_cast<char>(d < 0 ? d + 256 : d);
    }
    return out;
}

}  // namespace

TEST(CryptoEs256, SignersGiveLowSAndVerifiersAcceptBothForms) {
    pouch::crypto::P256PrivateKey key = pouch::crypto::P256PrivateKey::generate();
    auto pub = P256PublicKey::from_jwk(key.x(), key.y());
    ASSERT_TRUE(pub);
    int high_seen = 0;
    for (int i = 0; i < 64; ++i) {
        std::string msg = "message " + std::to_string(i);
        std::string sig = key.sign_es256(msg);
        ASSERT_EQ(sig.size(), 64u);
        EXPECT_TRUE(es256_is_low_s(sig)) << "signature " << i << " is high-S";
        EXPECT_TRUE(pub->verify(msg, sig));
        // The mirrored signature (R, n - S) is high-S, and still verifies.
        std::string high = mirror_s(sig);
        EXPECT_FALSE(es256_is_low_s(high));
        EXPECT_TRUE(pub->verify(msg, high)) << "verifiers accept high-S too";
        EXPECT_EQ(es256_low_s(high), sig);
        EXPECT_EQ(es256_low_s(sig), sig);
        // A raw OpenSSL signature is high-S about half the time; the signer fixed those.
        TestP256Key t;
        if (!es256_is_low_s(t.sign_raw(msg))) ++high_seen;
    }
    EXPECT_GT(high_seen, 0) << "OpenSSL never made a high-S signature in 64 tries";
}

TEST(CryptoEs256, LowSLeavesOtherLengthsAndTheEdgeAlone) {
    EXPECT_EQ(es256_low_s("short"), "short");
    EXPECT_FALSE(es256_is_low_s(std::string(63, '\1')));
    // S = n/2 (rounded down) is low; S = n/2 + 1 is high and becomes n - S = n/2.
    std::string half(64, '\0');
    const unsigned char h[32] = {0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b,
                                 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8};
    for (int i = 0; i < 32; ++i) half[32 + i] = static_cast<char>(h[i]);
    EXPECT_TRUE(es256_is_low_s(half));
    std::string above = half;
    above[63] = static_cast<char>(h[31] + 1);
    EXPECT_FALSE(es256_is_low_s(above));
    EXPECT_EQ(es256_low_s(above), half);
}
