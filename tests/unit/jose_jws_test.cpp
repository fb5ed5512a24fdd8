// jose_jws_test.cpp -- compact JWS parsing: attached and detached forms, strict b64url
// per part, strict header JSON (duplicate members refused), and ES256 verification.
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/jose/jws.h"
#include "tests/unit/crypto_test_util.h"

using namespace pouch::crypto;
using namespace pouch::jose;
using pouch::testutil::make_detached_jws;
using pouch::testutil::make_jws;
using pouch::testutil::TestP256Key;

TEST(JoseJws, ParsesAttachedFormIntoItsParts) {
    TestP256Key k;
    std::string c = make_jws(k, R"({"alg":"ES256"})", "payload bytes");
    auto j = parse_jws(c);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->header_json, R"({"alg":"ES256"})");
    EXPECT_EQ(j->header_b64, b64url_encode(R"({"alg":"ES256"})"));
    EXPECT_EQ(j->payload, "payload bytes");
    EXPECT_EQ(j->payload_b64, b64url_encode("payload bytes"));
    EXPECT_EQ(j->signing_input, j->header_b64 + "." + j->payload_b64);
    EXPECT_EQ(j->signature.size(), 64u);
    EXPECT_STREQ(j->header["alg"].GetString(), "ES256");
    EXPECT_TRUE(j->verify_es256(k.public_key()));
}

TEST(JoseJws, VerifyFailsForOtherKeyOrTamperedPayload) {
    TestP256Key k, other;
    std::string c = make_jws(k, R"({"alg":"ES256"})", "abc");
    EXPECT_FALSE(parse_jws(c)->verify_es256(other.public_key()));
    size_t d1 = c.find('.'), d2 = c.find('.', d1 + 1);
    std::string tampered = c.substr(0, d1 + 1) + b64url_encode("abd") + c.substr(d2);
    auto j = parse_jws(tampered);
    ASSERT_TRUE(j);
    EXPECT_FALSE(j->verify_es256(k.public_key()));
}

TEST(JoseJws, RejectsWrongDotCount) {
    EXPECT_FALSE(parse_jws(""));
    EXPECT_FALSE(parse_jws("eyJhIjoxfQ"));
    EXPECT_FALSE(parse_jws("eyJhIjoxfQ.e30"));
    EXPECT_FALSE(parse_jws("eyJhIjoxfQ.e30.AA.AA"));
}

TEST(JoseJws, RejectsNonStrictB64urlInAnyPart) {
    std::string h = b64url_encode(R"({"alg":"ES256"})");
    EXPECT_TRUE(parse_jws(h + ".e30.AAAA"));
    EXPECT_FALSE(parse_jws(h + "=.e30.AAAA"));
    EXPECT_FALSE(parse_jws(h + ".e30=.AAAA"));
    EXPECT_FALSE(parse_jws(h + ".e30.AA+A"));
    EXPECT_FALSE(parse_jws(h + ".e30.AF"));  // non-canonical trailing bits
    EXPECT_FALSE(parse_jws(" " + h + ".e30.AAAA"));
}

TEST(JoseJws, RejectsHeaderThatIsNotAStrictJsonObject) {
    auto with_header = [](std::string_view json) {
        return parse_jws(b64url_encode(json) + ".e30.AAAA");
    };
    EXPECT_FALSE(with_header(R"({"alg":"ES256","alg":"none"})"));  // duplicate member
    EXPECT_FALSE(with_header(R"(["alg"])"));
    EXPECT_FALSE(with_header(R"("ES256")"));
    EXPECT_FALSE(with_header(R"({"alg":"ES256")"));
    EXPECT_FALSE(with_header("{\"alg\":\"\xff\"}"));  // invalid UTF-8
    EXPECT_FALSE(parse_jws(".e30.AAAA"));             // empty header
}

TEST(JoseJws, ParsesDetachedFormWithCallerPayload) {
    TestP256Key k;
    std::string payload_b64 = b64url_encode("detached");
    std::string c = make_detached_jws(k, R"({"alg":"ES256"})", payload_b64);
    ASSERT_NE(c.find(".."), std::string::npos);
    auto j = parse_jws_detached(c, payload_b64);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->payload, "detached");
    EXPECT_EQ(j->payload_b64, payload_b64);
    EXPECT_TRUE(j->verify_es256(k.public_key()));
    auto wrong = parse_jws_detached(c, b64url_encode("other"));
    ASSERT_TRUE(wrong);
    EXPECT_FALSE(wrong->verify_es256(k.public_key()));
}

TEST(JoseJws, DetachedRejectsNonEmptyMiddleAndBadPayloadB64) {
    TestP256Key k;
    std::string attached = make_jws(k, R"({"alg":"ES256"})", "x");
    EXPECT_FALSE(parse_jws_detached(attached, b64url_encode("x")));
    std::string c = make_detached_jws(k, R"({"alg":"ES256"})", "eA");
    EXPECT_FALSE(parse_jws_detached(c, "eA=="));
    EXPECT_FALSE(parse_jws_detached(c, "eB"));  // non-canonical
    // The attached parser sees an empty payload and still parses; only the detached
    // parser supplies it.
    auto j = parse_jws(c);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->payload, "");
}
