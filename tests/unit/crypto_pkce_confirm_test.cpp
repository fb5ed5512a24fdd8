// crypto_pkce_confirm_test.cpp -- PKCE S256 (RFC 7636 App. B vector, verifier charset and
// length) and the login confirm code of decisions §6 (value, format, accepted spellings).
#include <gtest/gtest.h>

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
