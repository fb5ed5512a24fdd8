// crypto_random_test.cpp -- tokens, token hashes, UUIDv4 and constant-time comparison:
// formats exactly as decisions §1 states them.
#include <gtest/gtest.h>

#include <set>

#include "common/crypto/b64url.h"
#include "common/crypto/ct.h"
#include "common/crypto/random.h"

using namespace pouch::crypto;

namespace {

// 8-4-4-4-12 lower-case hex, version nibble 4, variant 10xx. (No std::regex: GCC 12 warns
// inside it under -fsanitize=address, and -Werror turns that into a failed build.)
bool is_canonical_uuid_v4(const std::string& u) {
    if (u.size() != 36) return false;
    for (size_t i = 0; i < u.size(); ++i) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash != (u[i] == '-')) return false;
        if (!dash && !((u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'f'))) return false;
    }
    return u[14] == '4' && (u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b');
}

}  // namespace

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

TEST(CryptoRandom, UuidFormatCheckerRejectsNearMisses) {
    EXPECT_TRUE(is_canonical_uuid_v4("3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"));
    EXPECT_FALSE(is_canonical_uuid_v4("3F2A4C1E-8B7D-4E6F-9A0B-1C2D3E4F5A6B"));
    EXPECT_FALSE(is_canonical_uuid_v4("3f2a4c1e-8b7d-1e6f-9a0b-1c2d3e4f5a6b"));
    EXPECT_FALSE(is_canonical_uuid_v4("3f2a4c1e-8b7d-4e6f-7a0b-1c2d3e4f5a6b"));
    EXPECT_FALSE(is_canonical_uuid_v4("3f2a4c1e8b7d-4e6f-9a0b-1c2d3e4f5a6b0"));
}

TEST(CryptoRandom, UuidV4IsCanonicalLowerCaseVersion4) {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
        std::string u = uuid_v4();
        EXPECT_TRUE(is_canonical_uuid_v4(u)) << u;
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
