// json_parse_test.cpp -- strict parsing (decisions §3): duplicates at any depth, UTF-8 and
// surrogate rules, non-object roots, trailing bytes, nesting limit, number kinds, and the
// budget of §13 in counts and bytes, request bodies parsed in place.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/http/error.h"
#include "common/json/parse.h"

#include <rapidjson/error/en.h>

using pouch::Error;
using pouch::json::parse_strict;
using pouch::json::parse_strict_any;

namespace {

// The message of the invalid_json error parse_strict throws for body ("" if none).
std::string rejection(const std::string& body) {
    try {
        parse_strict(body);
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 400);
        EXPECT_EQ(e.code, "invalid_json");
        EXPECT_EQ(e.field, "");
        return e.message;
    }
    return "";
}

std::string nested(int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "{\"a\":";
    s += "1";
    for (int i = 0; i < depth; ++i) s += "}";
    return s;
}

}  // namespace

TEST(JsonParse, AcceptsObjectAndKeepsValues) {
    auto doc = parse_strict(R"({"s":"h\u00e9","i":-5,"b":true,"n":null,"a":[1,{}]})");
    ASSERT_TRUE(doc.IsObject());
    EXPECT_EQ(std::string(doc["s"].GetString()), "h\xc3\xa9");
    EXPECT_EQ(doc["i"].GetInt64(), -5);
    EXPECT_TRUE(doc["b"].GetBool());
    EXPECT_TRUE(doc["n"].IsNull());
    EXPECT_EQ(doc["a"].Size(), 2u);
}

TEST(JsonParse, AcceptsValidSurrogatePairEscape) {
    auto doc = parse_strict(R"({"e":"\ud83d\ude02"})");
    EXPECT_EQ(std::string(doc["e"].GetString()), "\xf0\x9f\x98\x82");
}

TEST(JsonParse, IntegersStayIntegersAndFractionsBecomeDoubles) {
    auto doc = parse_strict(
        R"({"i":9007199254740991,"u":18446744073709551615,"f":1.0,"e":1e2,"neg":-9007199254740991})");
    EXPECT_TRUE(doc["i"].IsInt64());
    EXPECT_EQ(doc["i"].GetInt64(), 9007199254740991LL);
    EXPECT_TRUE(doc["u"].IsUint64());
    EXPECT_FALSE(doc["u"].IsInt64());
    EXPECT_TRUE(doc["f"].IsDouble());
    EXPECT_FALSE(doc["f"].IsInt64());
    EXPECT_TRUE(doc["e"].IsDouble());
    EXPECT_EQ(doc["neg"].GetInt64(), -9007199254740991LL);
}

TEST(JsonParse, RejectsDuplicateKeyAtTopLevel) {
    EXPECT_EQ(rejection(R"({"a":1,"a":2})"), "duplicate key \"a\" in the top-level object");
}

TEST(JsonParse, RejectsDuplicateKeyInNestedObjectWithItsPointer) {
    EXPECT_EQ(rejection(R"({"x":{"a":1,"b":2,"a":3}})"), "duplicate key \"a\" at /x");
    EXPECT_EQ(rejection(R"({"ops":[{},{},{"k":{"a/b~":{"z":1,"z":1}}}]})"),
              "duplicate key \"z\" at /ops/2/k/a~1b~0");
}

TEST(JsonParse, AllowsSameKeyInSiblingObjects) {
    EXPECT_NO_THROW(parse_strict(R"({"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]})"));
}

TEST(JsonParse, RejectsInvalidUtf8Byte) {
    EXPECT_EQ(rejection("{\"a\":\"\xff\"}"), "invalid UTF-8 at offset 6");
    EXPECT_EQ(rejection("{\"a\":\"\x80\"}"), "invalid UTF-8 at offset 6");
    EXPECT_EQ(rejection("{\"a\":\"\xc3\"}"), "invalid UTF-8 at offset 6");  // truncated
}

TEST(JsonParse, RejectsInvalidUtf8InKey) {
    EXPECT_NE(rejection("{\"\xfe\":1}").find("invalid UTF-8"), std::string::npos);
}

TEST(JsonParse, RejectsOverlongEncodings) {
    // "/" as C0 AF (2 bytes) and E0 80 AF (3 bytes), NUL as C0 80.
    EXPECT_NE(rejection("{\"a\":\"\xc0\xaf\"}").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(rejection("{\"a\":\"\xe0\x80\xaf\"}").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(rejection("{\"a\":\"\xc0\x80\"}").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(rejection("{\"a\":\"\xf0\x80\x80\xaf\"}").find("invalid UTF-8"), std::string::npos);
}

TEST(JsonParse, RejectsCodePointsAboveUnicodeRange) {
    EXPECT_NE(rejection("{\"a\":\"\xf4\x90\x80\x80\"}").find("invalid UTF-8"), std::string::npos);
}

TEST(JsonParse, RejectsRawEncodedSurrogate) {
    // U+D800 written directly as bytes (CESU-style), not as an escape.
    EXPECT_NE(rejection("{\"a\":\"\xed\xa0\x80\"}").find("invalid UTF-8"), std::string::npos);
}

TEST(JsonParse, RejectsLoneLowSurrogateEscape) {
    EXPECT_EQ(rejection(R"({"a":"\udc00"})"),
              "invalid UTF-8 in a string (lone surrogate or bad byte sequence)");
    EXPECT_EQ(rejection(R"({"\udfff":1})"),
              "invalid UTF-8 in a string (lone surrogate or bad byte sequence)");
}

TEST(JsonParse, RejectsLoneHighSurrogateEscape) {
    EXPECT_EQ(rejection(R"({"a":"\ud800x"})"),
              "invalid UTF-8: lone surrogate in a \\u escape at offset 6");
    EXPECT_EQ(rejection(R"({"a":"\ud800"})"),
              "invalid UTF-8: lone surrogate in a \\u escape at offset 6");
    // A high surrogate followed by an escape that is not a low surrogate.
    EXPECT_EQ(rejection(R"({"a":"\ud800\u0041"})"),
              "invalid UTF-8: lone surrogate in a \\u escape at offset 6");
}

TEST(JsonParse, RejectsReversedSurrogatePair) {
    EXPECT_NE(rejection(R"({"a":"\ude02\ud83d"})").find("surrogate"), std::string::npos);
}

TEST(JsonParse, RejectsNanAndInfinity) {
    EXPECT_EQ(rejection(R"({"a":NaN})").rfind("malformed JSON at offset 5", 0), 0u);
    EXPECT_EQ(rejection(R"({"a":Infinity})").rfind("malformed JSON at offset 5", 0), 0u);
    EXPECT_EQ(rejection(R"({"a":-Infinity})").rfind("malformed JSON at offset", 0), 0u);
}

TEST(JsonParse, RejectsNumberTooLargeForDouble) {
    EXPECT_EQ(rejection(R"({"a":1e400})").rfind("malformed JSON at offset", 0), 0u);
}

TEST(JsonParse, RejectsTrailingGarbage) {
    EXPECT_EQ(rejection(R"({"a":1} x)").rfind("malformed JSON at offset 8", 0), 0u);
    EXPECT_EQ(rejection(R"({"a":1}{})").rfind("malformed JSON at offset 7", 0), 0u);
}

TEST(JsonParse, RejectsEmbeddedNulByte) {
    EXPECT_EQ(rejection(std::string("{\"a\":1}\0{", 9)), "malformed JSON at offset 7: NUL byte");
    EXPECT_EQ(rejection(std::string("{\"a\":\"\0\"}", 9)), "malformed JSON at offset 6: NUL byte");
}

TEST(JsonParse, RejectsSyntaxErrors) {
    EXPECT_EQ(rejection(R"({"a":1,})").rfind("malformed JSON at offset", 0), 0u);
    EXPECT_EQ(rejection(R"({'a':1})").rfind("malformed JSON at offset 1", 0), 0u);
    EXPECT_EQ(rejection(R"({"a":01})").rfind("malformed JSON at offset", 0), 0u);
    EXPECT_EQ(rejection("{\"a\":\"tab\there\"}").rfind("malformed JSON at offset", 0), 0u);
    EXPECT_EQ(rejection(R"({"a":1 // c
})")
                  .rfind("malformed JSON at offset", 0),
              0u);
}

TEST(JsonParse, RejectsEmptyBody) {
    EXPECT_EQ(rejection(""), "empty body, expected a JSON object");
    EXPECT_EQ(rejection("  \n"), "empty body, expected a JSON object");
}

TEST(JsonParse, RejectsNonObjectTopLevel) {
    EXPECT_EQ(rejection("[]"), "body is not a JSON object");
    EXPECT_EQ(rejection("\"x\""), "body is not a JSON object");
    EXPECT_EQ(rejection("1"), "body is not a JSON object");
    EXPECT_EQ(rejection("null"), "body is not a JSON object");
    EXPECT_EQ(rejection("true"), "body is not a JSON object");
}

TEST(JsonParse, AnyVariantAcceptsNonObjectTopLevelWithSameRules) {
    EXPECT_TRUE(parse_strict_any("[1,2]").IsArray());
    EXPECT_TRUE(parse_strict_any(" 5 ").IsInt64());
    EXPECT_THROW(parse_strict_any(R"([{"a":1,"a":1}])"), pouch::Error);
    EXPECT_THROW(parse_strict_any(R"(["\udc00"])"), pouch::Error);
}

TEST(JsonParse, AcceptsNestingAtDepthLimit) {
    EXPECT_NO_THROW(parse_strict(nested(pouch::json::kMaxDepth)));
}

TEST(JsonParse, RejectsNestingOnePastDepthLimit) {
    EXPECT_EQ(pouch::json::kMaxDepth, 32);
    EXPECT_EQ(rejection(nested(pouch::json::kMaxDepth + 1)), "JSON nested deeper than 32 levels");
    std::string arrays = "{\"a\":" + std::string(32, '[') + std::string(32, ']') + "}";
    EXPECT_EQ(rejection(arrays), "JSON nested deeper than 32 levels");
}

TEST(JsonParse, RejectsVeryDeepNestingWithoutCrashing) {
    std::string deep = "{\"a\":" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
    EXPECT_EQ(rejection(deep), "JSON nested deeper than 32 levels");
}

namespace {

// {"k0":0,"k1":0,...} with n members.
std::string object_of(size_t n) {
    std::string s = "{";
    for (size_t i = 0; i < n; ++i) s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
    return s + "}";
}

// {"a":[0,0,...]}: the object, the array and n numbers are n + 2 values.
std::string values_doc(size_t n) {
    std::string s = "{\"a\":[";
    for (size_t i = 0; i < n; ++i) s += i ? ",0" : "0";
    return s + "]}";
}

}  // namespace

TEST(JsonParse, AcceptsAnObjectOfExactlyTheMemberBudget) {
    EXPECT_EQ(pouch::json::kMaxMembers, 1024u);
    EXPECT_EQ(parse_strict(object_of(1024)).MemberCount(), 1024u);
}

TEST(JsonParse, RejectsAnObjectOneMemberPastTheBudget) {
    EXPECT_EQ(rejection(object_of(1025)),
              "an object has more than 1024 members (the top-level object)");
    EXPECT_EQ(rejection("{\"a\":[" + object_of(1025) + "]}"),
              "an object has more than 1024 members at /a/0");
}

TEST(JsonParse, AcceptsADocumentOfExactlyTheValueBudget) {
    EXPECT_EQ(pouch::json::kMaxValues, 262144u);
    EXPECT_EQ(parse_strict(values_doc(262144 - 2))["a"].Size(), 262142u);
}

TEST(JsonParse, RejectsADocumentOneValuePastTheBudget) {
    EXPECT_EQ(rejection(values_doc(262144 - 1)), "the document holds more than 262144 values");
}

// The attack of issue 13: 16 MiB of tiny keys in one object. Refused at member 1,025, so the
// parse reads a few kilobytes of it and builds almost nothing.
TEST(JsonParse, RejectsSixteenMebibytesOfTinyKeysAtTheMemberBudget) {
    std::string body = "{";
    for (size_t i = 0; body.size() < 16 * 1024 * 1024; ++i)
        body += (i ? ",\"" : "\"") + std::to_string(i) + "\":1";
    body += "}";
    EXPECT_EQ(rejection(body), "an object has more than 1024 members (the top-level object)");
}

TEST(JsonParse, TruncatesLongDuplicateKeyInMessage) {
    std::string k(100, 'k');
    std::string msg = rejection("{\"" + k + "\":1,\"" + k + "\":2}");
    EXPECT_EQ(msg, "duplicate key \"" + std::string(64, 'k') + "...\" in the top-level object");
}

// --- the byte budget and in-place parsing (issue 22) -------------------------------------------

namespace {

// The message of the invalid_json error parse_request throws for body with max_bytes ("" if
// none).
std::string request_rejection(std::string body, size_t max_bytes) {
    try {
        pouch::json::parse_request(body, max_bytes);
    } catch (const pouch::Error& e) {
        EXPECT_EQ(e.code, "invalid_json");
        return e.message;
    }
    return "";
}

}  // namespace

TEST(JsonParse, RequestBodyIsParsedInPlaceWithItsStringsDecodedInsideIt) {
    std::string body = R"({"s":"caf\u00e9","k\"ey":["x","y"],"n":-7})";
    auto doc = pouch::json::parse_request(body, 1024);
    const char* begin = body.data();
    const char* end = begin + body.size();
    ASSERT_TRUE(doc.IsObject());
    EXPECT_EQ(std::string(doc["s"].GetString(), doc["s"].GetStringLength()), "caf\xc3\xa9");
    EXPECT_EQ(doc["k\"ey"][1].GetString(), std::string("y"));
    EXPECT_EQ(doc["n"].GetInt64(), -7);
    // Nothing was copied: every string and key points into the body.
    for (const char* p :
         {doc["s"].GetString(), doc["k\"ey"][0].GetString(), doc.MemberBegin()->name.GetString()})
        EXPECT_TRUE(p >= begin && p < end);
}

TEST(JsonParse, RequestBodyKeepsEveryRuleOfTheStrictParser) {
    EXPECT_EQ(request_rejection(R"({"a":1,"a":2})", 1024),
              "duplicate key \"a\" in the top-level object");
    EXPECT_EQ(request_rejection(R"({"a":{"b":1,"b":1}})", 1024), "duplicate key \"b\" at /a");
    EXPECT_EQ(request_rejection("[1]", 1024), "body is not a JSON object");
    EXPECT_EQ(request_rejection(R"({"a":"\udc00"})", 1024).rfind("invalid UTF-8", 0), 0u);
    EXPECT_EQ(request_rejection(std::string("{\"a\":\"\0\"}", 9), 1024),
              "malformed JSON at offset 6: NUL byte");
    EXPECT_EQ(request_rejection(nested(33), SIZE_MAX), "JSON nested deeper than 32 levels");
}

// 16 bytes per value and per key: {"x":[0,...]} with n zeros holds the object, the key, the
// array and n numbers.
TEST(JsonParse, RequestBodyOfExactlyTheByteBudgetPassesAndOneValueMoreIsRefused) {
    size_t budget = 128 * 1024;
    size_t n = budget / pouch::json::kValueBytes - 3;  // 8189 numbers
    auto zeros = [](size_t k) {
        std::string s = "{\"x\":[";
        for (size_t i = 0; i < k; ++i) s += i ? ",0" : "0";
        return s + "]}";
    };
    EXPECT_EQ(request_rejection(zeros(n), budget), "");
    EXPECT_EQ(request_rejection(zeros(n + 1), budget),
              "the document needs more than 131072 bytes of memory");
}

TEST(JsonParse, KeysCountAgainstTheByteBudget) {
    // {"a":0,"b":0}: the object, two keys, two values: 5 x 16 = 80 bytes.
    EXPECT_EQ(request_rejection(R"({"a":0,"b":0})", 80), "");
    EXPECT_EQ(request_rejection(R"({"a":0,"b":0})", 79),
              "the document needs more than 79 bytes of memory");
}

TEST(JsonParse, CopiedStringsCountAgainstTheByteBudgetOutsideRequests) {
    pouch::json::Limits limits;
    // {"s":"abcdefghij"}: 3 values of 16 bytes, the key copied (2 bytes with its NUL), the
    // string copied (11).
    limits.max_bytes = 48 + 2 + 11;
    EXPECT_NO_THROW(parse_strict(R"({"s":"abcdefghij"})", limits));
    limits.max_bytes -= 1;
    EXPECT_THROW(parse_strict(R"({"s":"abcdefghij"})", limits), pouch::Error);
    // In place the same body costs only its values.
    EXPECT_EQ(request_rejection(R"({"s":"abcdefghij"})", 48), "");
}

TEST(JsonParse, WiderLimitsLetACallerReadLargerDocuments) {
    pouch::json::Limits wide;
    wide.max_members = 5000;
    wide.max_values = 1000000;
    EXPECT_EQ(parse_strict(object_of(5000), wide).MemberCount(), 5000u);
    EXPECT_EQ(parse_strict_any(values_doc(300000), wide)["a"].Size(), 300000u);
    EXPECT_THROW(parse_strict(object_of(5001), wide), pouch::Error);
}

TEST(JsonParse, NumberLiteralsOfAtMostAHundredCharactersAreRead) {
    std::string hundred = "1" + std::string(99, '0');  // 1e99, a double
    EXPECT_TRUE(parse_strict("{\"a\":" + hundred + "}")["a"].IsDouble());
    EXPECT_EQ(rejection("{\"a\":" + hundred + "0}"), "a number literal longer than 100 characters");
    EXPECT_EQ(request_rejection("{\"a\":-" + hundred + "}", SIZE_MAX),
              "a number literal longer than 100 characters");
    EXPECT_EQ(request_rejection("{\"a\":0." + std::string(16 << 20, '7') + "}", SIZE_MAX),
              "a number literal longer than 100 characters");
}

// --- strings read in place, their plain runs 16 bytes at a time (issue 25) ---------------------

namespace {

// What RapidJSON's own reader (a character at a time, nothing in place) says of `text`: "" when
// it accepts it, else the message parse_strict gives for a malformed text at that offset.
std::string reference_rejection(const std::string& text) {
    rapidjson::Document ref;
    ref.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag>(text.data(),
                                                                                      text.size());
    if (!ref.HasParseError()) return "";
    return "malformed JSON at offset " + std::to_string(ref.GetErrorOffset()) + ": " +
           rapidjson::GetParseError_En(ref.GetParseError());
}

// n plain characters, none of them 16-byte aligned with anything in particular.
std::string filler(size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
    return s;
}

}  // namespace

TEST(JsonParse, EscapesAtEveryOffsetAroundTheSixteenByteRunsDecodeAsTheReferenceReaderDoes) {
    const std::pair<std::string, std::string> escapes[] = {
        {"\\\"", "\""}, {"\\\\", "\\"},          {"\\n", "\n"},
        {"\\/", "/"},   {"\\u00e9", "\xc3\xa9"}, {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"}};
    for (size_t before = 0; before <= 40; ++before) {
        for (const auto& [escaped, decoded] : escapes) {
            // Two escapes, so the run after the first is moved back over the bytes it freed.
            std::string text = "{\"k" + filler(before) + "\":\"" + filler(before) + escaped +
                               filler(37 - before % 37) + escaped + "\x7f~\"}";
            std::string want =
                filler(before) + decoded + filler(37 - before % 37) + decoded + "\x7f~";
            rapidjson::Document doc = parse_strict(std::string(text));  // the text is gone after
            ASSERT_TRUE(doc.IsObject()) << text;
            const auto& s = doc.MemberBegin()->value;
            EXPECT_EQ(std::string(doc.MemberBegin()->name.GetString()), "k" + filler(before));
            EXPECT_EQ(std::string(s.GetString(), s.GetStringLength()), want) << text;
            // The in-place request path decodes the same bytes.
            std::string body = text;
            auto req = pouch::json::parse_request(body, SIZE_MAX);
            EXPECT_EQ(std::string(req.MemberBegin()->value.GetString(),
                                  req.MemberBegin()->value.GetStringLength()),
                      want);
        }
    }
}

TEST(JsonParse, AControlCharacterOrTheEndInAStringIsRefusedWhereTheReferenceReaderRefusesIt) {
    for (size_t before = 0; before <= 40; ++before) {
        for (std::string bad : {std::string("\x01"), std::string("\x1f"), std::string("\t"),
                                std::string("\\x"), std::string("\\u12"), std::string("")}) {
            // bad == "": the text ends inside the string, at every distance from a 16-byte run.
            std::string text = "{\"s\":\"" + filler(before) + "\\n" + filler(before) + bad;
            if (!bad.empty()) text += "\"}";
            std::string want = reference_rejection(text);
            ASSERT_NE(want, "") << text;
            EXPECT_EQ(rejection(text), want) << text;
            EXPECT_EQ(request_rejection(text, SIZE_MAX), want) << text;
        }
    }
}

// RapidJSON 1.1 copies a string the document does not own by its pointer: parse_strict's
// documents own theirs, so a value copied into another document outlives the parse and its text.
TEST(JsonParse, AValueCopiedOutOfAParsedDocumentOutlivesItAndItsText) {
    rapidjson::Document kept;
    {
        std::string text =
            R"({"items":[{"pouch_id":"p-1","name":"caf\u00e9 )" + filler(40) + R"("}]})";
        rapidjson::Document doc = parse_strict(text);
        kept.CopyFrom(doc["items"][0], kept.GetAllocator());
        text.assign(text.size(), 'x');  // the text overwritten, then both gone
    }
    std::vector<std::string> junk;  // what was freed, reused and overwritten
    for (size_t k = 1; k <= 80; ++k) junk.emplace_back(k * 1024, 'y');
    for (size_t k = 1; k <= 256; ++k) junk.emplace_back(k, 'y');
    ASSERT_TRUE(kept.IsObject());
    EXPECT_EQ(std::string(kept["pouch_id"].GetString()), "p-1");
    EXPECT_EQ(std::string(kept["name"].GetString()), "caf\xc3\xa9 " + filler(40));
    EXPECT_EQ(std::string(kept.MemberBegin()->name.GetString()), "pouch_id");
}
