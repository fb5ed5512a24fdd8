// crypto_es256_test.cpp -- P-256 key import from JWK coordinates and raw R||S ES256
// verification, with keys and signatures made here by OpenSSL (crypto_test_util).
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
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
