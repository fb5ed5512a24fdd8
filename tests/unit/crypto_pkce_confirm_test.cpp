// crypto_pkce_confirm_test.cpp -- PKCE S256 (RFC 7636 App. B vector, verifier charset and
// length), the service's login confirm code of decisions §6 (value, format, accepted
// spellings), and the CLI's v2 code and key fingerprint of decisions §15.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/crypto/confirm_code.h"
#include "common/crypto/pkce.h"

using namespace pouch::crypto;

TEST(CryptoPkce, S256MatchesRfc7636Vector) {
    EXPECT_EQ(pkce_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
              "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(CryptoPkce, VerifierMustBe43To128UnreservedChars) {
    EXPECT_TRUE(valid_code_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
    EXPECT_TRUE(valid_code_verifier(std::string(43, 'a')));
    EXPECT_TRUE(valid_code_verifier(std::string(128, '~')));
    EXPECT_TRUE(valid_code_verifier(std::string(40, 'a') + "-._~"));
    EXPECT_FALSE(valid_code_verifier(std::string(42, 'a')));
    EXPECT_FALSE(valid_code_verifier(std::string(129, 'a')));
    EXPECT_FALSE(valid_code_verifier(std::string(42, 'a') + "+"));
    EXPECT_FALSE(valid_code_verifier(std::string(42, 'a') + "="));
    EXPECT_FALSE(valid_code_verifier(std::string(42, 'a') + " "));
    EXPECT_FALSE(valid_code_verifier(""));
}

TEST(CryptoConfirmCode, MatchesIndependentComputation) {
    // Python: sha256(b"pouch-confirm-v1" + id + jkt)[:8] big-endian % 10**8 = 06717706.
    EXPECT_EQ(confirm_code("3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b",
                           "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"),
              "0671-7706");
}

TEST(CryptoConfirmCode, IsDeterministicAndDependsOnBothInputs) {
    std::string a = confirm_code("req-1", "jkt-1");
    EXPECT_EQ(a, confirm_code("req-1", "jkt-1"));
    EXPECT_NE(a, confirm_code("req-2", "jkt-1"));
    EXPECT_NE(a, confirm_code("req-1", "jkt-2"));
    ASSERT_EQ(a.size(), 9u);
    EXPECT_EQ(a[4], '-');
}

TEST(CryptoConfirmCode, AcceptsWithOrWithoutHyphenOnly) {
    EXPECT_TRUE(confirm_code_matches("06717706", "0671-7706"));
    EXPECT_TRUE(confirm_code_matches("0671-7706", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("06717707", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("067-17706", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("0671 7706", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("6717706", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches(" 06717706", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("0671-77O6", "0671-7706"));
    EXPECT_FALSE(confirm_code_matches("", "0671-7706"));
}

namespace {

const std::string kNonce = [] {
    std::string n;
    for (int i = 0; i < 16; ++i) n += static_cast<char>(i);
    return n;
}();
const char* kRequest = "3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const char* kSignJkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I";
const char* kEncJkt = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";

}  // namespace

TEST(CryptoConfirmCodeV2, MatchesIndependentComputationWithItsLeadingZero) {
    // Python: HKDF-SHA256(ikm = bytes(range(16)), salt = b"", info = b"pouch/confirm/v2" + id +
    // sign_jkt + enc_jkt, 32)[:8] big-endian % 10**12 = 035586415909.
    EXPECT_EQ(confirm_code_v2(kNonce, kRequest, kSignJkt, kEncJkt), "0355-8641-5909");
}

TEST(CryptoConfirmCodeV2, DependsOnEveryInput) {
    std::string a = confirm_code_v2(kNonce, kRequest, kSignJkt, kEncJkt);
    std::string other_nonce = kNonce;
    other_nonce[15] ^= 1;
    EXPECT_NE(a, confirm_code_v2(other_nonce, kRequest, kSignJkt, kEncJkt));
    EXPECT_NE(a,
              confirm_code_v2(kNonce, "3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6c", kSignJkt, kEncJkt));
    EXPECT_NE(a, confirm_code_v2(kNonce, kRequest, kEncJkt, kSignJkt));
    EXPECT_NE(a, confirm_code_v2(kNonce, kRequest, kSignJkt, kSignJkt));
    ASSERT_EQ(a.size(), 14u);
    EXPECT_EQ(a[4], '-');
    EXPECT_EQ(a[9], '-');
}

TEST(CryptoConfirmCodeV2, NeedsANonceOfExactly16Bytes) {
    EXPECT_THROW(confirm_code_v2(kNonce.substr(0, 15), kRequest, kSignJkt, kEncJkt),
                 std::invalid_argument);
    EXPECT_THROW(confirm_code_v2(kNonce + "x", kRequest, kSignJkt, kEncJkt), std::invalid_argument);
    EXPECT_THROW(confirm_code_v2("", kRequest, kSignJkt, kEncJkt), std::invalid_argument);
}

TEST(CryptoKeyFingerprint, IsTheFirst16ThumbprintCharactersInFours) {
    EXPECT_EQ(key_fingerprint(kSignJkt), "0ZcO CORZ NYy- DWpq");
    EXPECT_EQ(key_fingerprint("abcdefghijklmnop"), "abcd efgh ijkl mnop");
    EXPECT_THROW(key_fingerprint("abcdefghijklmno"), std::invalid_argument);
}
