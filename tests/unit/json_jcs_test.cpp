// json_jcs_test.cpp -- RFC 8785 canonical form: the decisions §12 vectors, UTF-16 key
// order, ECMAScript string escaping, and numbers JCS cannot represent exactly.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/json/jcs.h"
#include "common/json/parse.h"

using pouch::json::jcs;
using pouch::json::parse_strict_any;

namespace {

std::optional<std::string> canon(const std::string& text) {
    return jcs(parse_strict_any(text));
}

}  // namespace

TEST(JsonJcs, DecisionsVectorOneSortsNestedKeys) {
    EXPECT_EQ(canon(R"([56,{"d":true,"10":null,"1":[]}])"), R"([56,{"1":[],"10":null,"d":true}])");
}

TEST(JsonJcs, DecisionsVectorTwoSortsAndNormalisesNumbers) {
    EXPECT_EQ(
        canon(
            R"({"1":{"f":{"f":"hi","F":5},"\n":56.0},"10":{},"":"empty","a":{},"111":[{"e":"yes","E":"no"}],"A":{}})"),
        R"({"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}})");
}

TEST(JsonJcs, SortsKeysByUtf16CodeUnitsNotUtf8Bytes) {
    // U+1F602 is D83D DE02 in UTF-16 (sorts before FB33) but F0.. in UTF-8 (sorts after EF..).
    std::string emoji = "\xf0\x9f\x98\x82";  // U+1F602
    std::string hebrew = "\xef\xac\xb3";     // U+FB33
    std::string euro = "\xe2\x82\xac";       // U+20AC
    auto out = canon("{\"" + hebrew + "\":1,\"" + emoji + "\":2,\"" + euro + "\":3,\"z\":4}");
    EXPECT_EQ(out, "{\"z\":4,\"" + euro + "\":3,\"" + emoji + "\":2,\"" + hebrew + "\":1}");
}

TEST(JsonJcs, Rfc8785SortingExample) {
    // RFC 8785 §3.2.3 property names (escaped input), expected order from the RFC.
    auto out = canon(
        R"({"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"})");
    EXPECT_EQ(out,
              "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\","
              "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\","
              "\"\xe2\x82\xac\":\"Euro Sign\",\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
              "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

TEST(JsonJcs, EscapesLikeJsonStringify) {
    auto out = canon(R"(["\"\\\/\b\f\n\r\t\u0000\u001f\u000b\u007f\u00e9\u2028\u2029"])");
    EXPECT_EQ(out,
              "[\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u000b\x7f\xc3\xa9"
              "\xe2\x80\xa8\xe2\x80\xa9\"]");
}

TEST(JsonJcs, EscapesControlCharactersInKeys) {
    EXPECT_EQ(canon(R"({"\u0001":1})"), R"({"\u0001":1})");
}

TEST(JsonJcs, PrintsIntegralDoublesAsIntegers) {
    EXPECT_EQ(canon("[56.0]"), "[56]");
    EXPECT_EQ(canon("[1e2]"), "[100]");
    EXPECT_EQ(canon("[-0.0]"), "[0]");
    EXPECT_EQ(canon("[-0]"), "[0]");
    EXPECT_EQ(canon("[9007199254740991.0]"), "[9007199254740991]");
    EXPECT_EQ(canon("[-9007199254740991]"), "[-9007199254740991]");
}

TEST(JsonJcs, RejectsNonIntegralNumbers) {
    EXPECT_EQ(canon("[1.5]"), std::nullopt);
    EXPECT_EQ(canon(R"({"a":{"b":[0.1]}})"), std::nullopt);
    EXPECT_EQ(canon("[1e-7]"), std::nullopt);
}

TEST(JsonJcs, RejectsNumbersBeyondTheSafeIntegerRange) {
    // decisions §3: integers within ±9007199254740991 (2^53 - 1).
    EXPECT_EQ(canon("[9007199254740992]"), std::nullopt);
    EXPECT_EQ(canon("[-9007199254740992]"), std::nullopt);
    EXPECT_EQ(canon("[9007199254740992.0]"), std::nullopt);
    EXPECT_EQ(canon("[9007199254740993]"), std::nullopt);
    EXPECT_EQ(canon("[-9007199254740993]"), std::nullopt);
    EXPECT_EQ(canon("[18446744073709551615]"), std::nullopt);
    EXPECT_EQ(canon("[1e16]"), std::nullopt);
}

TEST(JsonJcs, WritesLiteralsAndEmptyContainers) {
    EXPECT_EQ(canon(R"({"t":true,"f":false,"n":null,"a":[],"o":{}})"),
              R"({"a":[],"f":false,"n":null,"o":{},"t":true})");
    EXPECT_EQ(canon("\"x\""), "\"x\"");
}

TEST(JsonJcs, RejectsValuesThatBypassedTheParser) {
    rapidjson::Document d;
    d.SetObject();
    d.AddMember("a", 1, d.GetAllocator());
    d.AddMember("a", 2, d.GetAllocator());
    EXPECT_EQ(jcs(d), std::nullopt);  // duplicate key

    rapidjson::Value bad;
    bad.SetString("\xed\xb0\x80", d.GetAllocator());  // lone surrogate bytes
    EXPECT_EQ(jcs(bad), std::nullopt);
}
