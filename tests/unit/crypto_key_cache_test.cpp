// crypto_key_cache_test.cpp -- the parsed-key cache behind DPoP and Service-Signature
// (common/crypto/key_cache.h): hits and misses, the LRU bound, and that only the thumbprint
// computed from the coordinates finds an entry (a claimed kid cannot borrow a cached key).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "common/crypto/key_cache.h"
#include "common/jose/dpop.h"
#include "common/types/error.h"
#include "tests/unit/crypto_test_util.h"

using namespace pouch::crypto;
using pouch::testutil::TestP256Key;

TEST(CryptoKeyCache, FirstLookupMissesAndParsesThenHits) {
    P256KeyCache cache(4);
    TestP256Key k;
    auto first = cache.get(k.x(), k.y());
    ASSERT_TRUE(first);
    EXPECT_EQ(cache.misses(), 1u);
    EXPECT_EQ(cache.hits(), 0u);
    auto second = cache.get(k.x(), k.y());
    ASSERT_TRUE(second);
    EXPECT_EQ(cache.hits(), 1u);
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(second->thumbprint(), k.jkt());
    EXPECT_TRUE(second->verify("m", k.sign_raw("m")));
}

TEST(CryptoKeyCache, InvalidKeyIsRefusedAndNotCached) {
    P256KeyCache cache(4);
    TestP256Key k;
    std::string y = k.y();
    y[5] = y[5] == 'A' ? 'B' : 'A';  // almost surely off the curve
    EXPECT_FALSE(cache.get(k.x(), y));
    EXPECT_FALSE(cache.get(k.x(), "short"));
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(cache.get(k.x(), y));
    EXPECT_EQ(cache.hits(), 0u);
}

TEST(CryptoKeyCache, HoldsAtMostCapacityEvictingLeastRecentlyUsed) {
    P256KeyCache cache(3);
    std::vector<TestP256Key> keys(4);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(cache.get(keys[i].x(), keys[i].y()));
    ASSERT_TRUE(cache.get(keys[0].x(), keys[0].y()));  // 0 is now the most recent; 1 the least
    ASSERT_TRUE(cache.get(keys[3].x(), keys[3].y()));  // evicts 1
    EXPECT_EQ(cache.size(), 3u);
    auto misses = cache.misses();
    ASSERT_TRUE(cache.get(keys[0].x(), keys[0].y()));
    ASSERT_TRUE(cache.get(keys[2].x(), keys[2].y()));
    ASSERT_TRUE(cache.get(keys[3].x(), keys[3].y()));
    EXPECT_EQ(cache.misses(), misses);
    ASSERT_TRUE(cache.get(keys[1].x(), keys[1].y()));
    EXPECT_EQ(cache.misses(), misses + 1);
    EXPECT_EQ(cache.size(), 3u);
}

TEST(CryptoKeyCache, AnotherKeyNeverGetsTheCachedOne) {
    P256KeyCache cache(4);
    TestP256Key a, b;
    ASSERT_TRUE(cache.get(a.x(), a.y()));
    auto got = cache.get(b.x(), b.y());
    ASSERT_TRUE(got);
    EXPECT_EQ(cache.misses(), 2u);
    EXPECT_EQ(got->thumbprint(), b.jkt());
    EXPECT_TRUE(got->verify("m", b.sign_raw("m")));
    EXPECT_FALSE(got->verify("m", a.sign_raw("m")));
    // Mixed coordinates are a third key (or none), never a hit on a or b.
    auto hits = cache.hits();
    (void)cache.get(a.x(), b.y());
    EXPECT_EQ(cache.hits(), hits);
}

// A DPoP proof whose jwk carries kid = the thumbprint of a key already cached is judged by its
// own coordinates: the signature by the other key does not verify, and the jkt is its own.
TEST(CryptoKeyCache, DpopKidClaimingACachedThumbprintDoesNotBorrowThatKey) {
    TestP256Key cached, other;
    ASSERT_TRUE(p256_key_cache().get(cached.x(), cached.y()));
    pouch::testutil::DpopClaims claims;
    std::string header =
        R"({"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","kid":")" +
        cached.jkt() + R"(","x":")" + other.x() + R"(","y":")" + other.y() + R"("}})";
    pouch::jose::DpopInput in{
        "", claims.htm, "https://sync.example.com", "/v1/cli-auth/token", std::nullopt, claims.iat};
    // Signed by the cached key, but the jwk is `other`: refused.
    std::string forged = pouch::testutil::make_dpop(cached, claims, header);
    in.proof = forged;
    EXPECT_THROW(pouch::jose::verify_dpop(in), pouch::Error);
    // Signed by `other` itself: accepted, bound to other's thumbprint.
    std::string honest = pouch::testutil::make_dpop(other, claims, header);
    in.proof = honest;
    EXPECT_EQ(pouch::jose::verify_dpop(in).jkt, other.jkt());
}

TEST(CryptoKeyCache, ConcurrentLookupsStayWithinTheBound) {
    P256KeyCache cache(8);
    std::vector<TestP256Key> keys(16);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                const TestP256Key& k = keys[static_cast<size_t>((i * 7 + t) % 16)];
                auto got = cache.get(k.x(), k.y());
                if (!got || got->x() != k.x() || got->y() != k.y()) ++wrong;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_LE(cache.size(), 8u);
    EXPECT_EQ(cache.hits() + cache.misses(), 800u);
}
