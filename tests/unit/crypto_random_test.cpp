// crypto_random_test.cpp -- tokens, token hashes, UUIDv4 and constant-time comparison:
// formats exactly as decisions §1 states them.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "common/crypto/b64url.h"
#include "common/crypto/ct.h"
#include "common/crypto/random.h"

using namespace pouch::crypto;

TEST(CryptoRandom, RandomBytesHasRequestedLengthAndVaries) {
    EXPECT_EQ(random_bytes(0), "");
    EXPECT_EQ(random_bytes(32).size(), 32u);
    EXPECT_NE(random_bytes(32), random_bytes(32));
}

TEST(CryptoRandom, NewTokenIsPrefixPlus43B64urlChars) {
    std::string t = new_token("svc_ws_");
    ASSERT_EQ(t.size(), 7u + 43u);
    EXPECT_EQ(t.substr(0, 7), "svc_ws_");
    auto raw = b64url_decode(t.substr(7));
    ASSERT_TRUE(raw);
    EXPECT_EQ(raw->size(), 32u);
    EXPECT_NE(new_token("svc_at_"), new_token("svc_at_"));
}

TEST(CryptoRandom, TokenHashIsB64urlSha256) {
    // sha256("hello") = 2cf24dba...; b64url of it, checked with Python's hashlib.
    EXPECT_EQ(token_hash("hello"), "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ");
    // The RFC 9449 ath vector is the same function.
    EXPECT_EQ(token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
              "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
}

TEST(CryptoRandom, UuidV4IsCanonicalLowerCaseVersion4) {
    std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
        std::string u = uuid_v4();
        EXPECT_TRUE(std::regex_match(u, re)) << u;
        seen.insert(u);
    }
    EXPECT_EQ(seen.size(), 200u);
}

TEST(CryptoCt, EqualOnlyForSameBytesAndLength) {
    EXPECT_TRUE(ct_equal("", ""));
    EXPECT_TRUE(ct_equal("abc", "abc"));
    EXPECT_FALSE(ct_equal("abc", "abd"));
    EXPECT_FALSE(ct_equal("abc", "abcd"));
    EXPECT_FALSE(ct_equal("", "a"));
    EXPECT_TRUE(ct_equal(std::string("a\0b", 3), std::string("a\0b", 3)));
    EXPECT_FALSE(ct_equal(std::string("a\0b", 3), std::string("a\0c", 3)));
}
