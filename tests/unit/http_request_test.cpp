// http_request_test.cpp -- query-string decoding: repeated or malformed keys are 400; the client
// address of a request in canonical form, or none.
#include <gtest/gtest.h>

#include "common/http/error.h"
#include "common/http/request.h"

namespace pouch {
namespace {

std::string field_of(const std::string& raw) {
    try {
        http::parse_query(raw);
        return "";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 400);
        EXPECT_EQ(e.code, "validation_failed");
        return e.field;
    }
}

TEST(Query, DecodesPercentAndPlus) {
    auto q = http::parse_query("cursor=a%2Bb&name=x+y&empty=&flag");
    EXPECT_EQ(q.at("cursor"), "a+b");
    EXPECT_EQ(q.at("name"), "x y");
    EXPECT_EQ(q.at("empty"), "");
    EXPECT_EQ(q.at("flag"), "");
    EXPECT_EQ(q.size(), 4u);
}

TEST(Query, EmptyAndStrayAmpersandsAreHarmless) {
    EXPECT_TRUE(http::parse_query("").empty());
    EXPECT_EQ(http::parse_query("a=1&&b=2&").size(), 2u);
}

TEST(Query, RepeatedKeyIsRejectedWithItsField) {
    EXPECT_EQ(field_of("limit=1&limit=2"), "?limit");
    EXPECT_EQ(field_of("limit=1&li%6dit=2"), "?limit");  // same key once decoded
}

TEST(Query, MalformedEscapeIsRejected) {
    EXPECT_EQ(field_of("cursor=%zz"), "?cursor");
    EXPECT_EQ(field_of("cursor=%4"), "?cursor");
    EXPECT_EQ(field_of("=1"), "?");
}

TEST(PercentDecode, RejectsTruncatedEscape) {
    EXPECT_EQ(http::percent_decode("%41%42", false).value(), "AB");
    EXPECT_FALSE(http::percent_decode("%", false).has_value());
    EXPECT_EQ(http::percent_decode("a+b", false).value(), "a+b");
}

}  // namespace
TEST(CanonicalIp, IPv4AndIPv6AddressesComeBackCanonical) {
    EXPECT_EQ(http::canonical_ip("127.0.0.1"), "127.0.0.1");
    EXPECT_EQ(http::canonical_ip("203.0.113.9"), "203.0.113.9");
    EXPECT_EQ(http::canonical_ip("::1"), "::1");
    EXPECT_EQ(http::canonical_ip("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
    EXPECT_EQ(http::canonical_ip("::ffff:192.0.2.1"), "::ffff:192.0.2.1");
}

TEST(CanonicalIp, AnythingElseIsUnknown) {
    for (const char* s : {"", "unix:", "localhost", "1.2.3", "1.2.3.4 ", "1.2.3.4, 5.6.7.8",
                          "256.1.1.1", "fe80::1%eth0", "[::1]"})
        EXPECT_EQ(http::canonical_ip(s), std::nullopt) << s;
}

}  // namespace pouch
