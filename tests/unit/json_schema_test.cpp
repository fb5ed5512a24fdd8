// json_schema_test.cpp -- the declarative validator: each rule at its edge and one past it,
// exact JSON Pointers (nested arrays, ~0/~1 escaping), messages, document order.
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/http/error.h"
#include "common/json/parse.h"
#include "common/json/schema.h"

namespace js = pouch::json::schema;
using pouch::Error;

namespace {

// {field, message} of the validation_failed error, or {"", ""} when the body is valid.
std::pair<std::string, std::string> violation(const std::string& body, const js::Node& schema) {
    auto doc = pouch::json::parse_strict(body);
    try {
        js::validate(doc, schema);
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 400);
        EXPECT_EQ(e.code, "validation_failed");
        return {e.field, e.message};
    }
    return {"", ""};
}

using V = std::pair<std::string, std::string>;
const V kOk{"", ""};

js::Node one(const char* name, js::Node n) {
    return js::object({js::req(name, std::move(n))});
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace

TEST(JsonSchema, AcceptsDocumentMatchingSchema) {
    static const js::Node kSignup = js::object({
        js::req("email", js::string().max_chars(254)),
        js::req("password", js::string().min_chars(10).max_chars(1024)),
        js::opt("reason", js::string().max_chars(500).nullable()),
    });
    EXPECT_EQ(violation(R"({"email":"a@b.c","password":"0123456789"})", kSignup), kOk);
    EXPECT_EQ(violation(R"({"email":"a@b.c","password":"0123456789","reason":null})", kSignup),
              kOk);
}

TEST(JsonSchema, RejectsUnknownField) {
    auto s = js::object({js::opt("a", js::integer())});
    EXPECT_EQ(violation(R"({"a":1,"b":2})", s), V("/b", "unknown field"));
    EXPECT_EQ(violation(R"({"x":{}})", js::object({js::opt("x", js::object({}))})), kOk);
    EXPECT_EQ(violation(R"({"x":{"y":1}})", js::object({js::opt("x", js::object({}))})),
              V("/x/y", "unknown field"));
}

TEST(JsonSchema, EscapesFieldNamesInPointer) {
    auto s = js::object({});
    EXPECT_EQ(violation(R"({"a/b~c":1})", s), V("/a~1b~0c", "unknown field"));
    EXPECT_EQ(violation(R"({"m~1":1})", s), V("/m~01", "unknown field"));
}

TEST(JsonSchema, RejectsMissingRequiredMemberWithItsPointer) {
    auto s = js::object(
        {js::req("a", js::integer()), js::req("b", js::integer()), js::opt("c", js::integer())});
    EXPECT_EQ(violation(R"({"a":1})", s), V("/b", "is required"));
    EXPECT_EQ(violation(R"({"b":1})", s), V("/a", "is required"));
    EXPECT_EQ(violation(R"({"b":1,"a":2})", s), kOk);
    auto nested = js::object({js::req("x", js::object({js::req("y", js::boolean())}))});
    EXPECT_EQ(violation(R"({"x":{}})", nested), V("/x/y", "is required"));
}

TEST(JsonSchema, ReportsTypeMismatches) {
    EXPECT_EQ(violation(R"({"v":1})", one("v", js::string())), V("/v", "must be a string"));
    EXPECT_EQ(violation(R"({"v":"1"})", one("v", js::integer())), V("/v", "must be an integer"));
    EXPECT_EQ(violation(R"({"v":1})", one("v", js::boolean())), V("/v", "must be a boolean"));
    EXPECT_EQ(violation(R"({"v":{}})", one("v", js::array(js::string()))),
              V("/v", "must be an array"));
    EXPECT_EQ(violation(R"({"v":[]})", one("v", js::object({}))), V("/v", "must be an object"));
    EXPECT_EQ(violation(R"({"v":"true"})", one("v", js::boolean())), V("/v", "must be a boolean"));
}

TEST(JsonSchema, AcceptsNullOnlyWhenNullable) {
    EXPECT_EQ(violation(R"({"v":null})", one("v", js::string())), V("/v", "must not be null"));
    EXPECT_EQ(violation(R"({"v":null})", one("v", js::string().nullable())), kOk);
    EXPECT_EQ(violation(R"({"v":null})", one("v", js::integer().nullable())), kOk);
    EXPECT_EQ(violation(R"({"v":null})", one("v", js::object({}))), V("/v", "must not be null"));
    // A nullable required member must still be present.
    EXPECT_EQ(violation(R"({})", one("v", js::string().nullable())), V("/v", "is required"));
}

TEST(JsonSchema, StringMaxCharsEdge) {
    auto s = one("v", js::string().max_chars(64));
    EXPECT_EQ(violation("{\"v\":\"" + std::string(64, 'a') + "\"}", s), kOk);
    EXPECT_EQ(violation("{\"v\":\"" + std::string(65, 'a') + "\"}", s),
              V("/v", "must be at most 64 characters"));
}

TEST(JsonSchema, StringLengthCountsCodePointsNotBytes) {
    auto s = one("v", js::string().max_chars(64));
    std::string e_acute = "\xc3\xa9", emoji = "\xf0\x9f\x98\x82";
    EXPECT_EQ(violation("{\"v\":\"" + repeat(e_acute, 64) + "\"}", s), kOk);
    EXPECT_EQ(violation("{\"v\":\"" + repeat(emoji, 64) + "\"}", s), kOk);
    EXPECT_EQ(violation("{\"v\":\"" + repeat(emoji, 65) + "\"}", s),
              V("/v", "must be at most 64 characters"));
    EXPECT_EQ(violation("{\"v\":\"" + repeat(e_acute, 63) + "ab\"}", s),
              V("/v", "must be at most 64 characters"));
}

TEST(JsonSchema, StringMinCharsEdge) {
    auto s = one("v", js::string().min_chars(10).max_chars(1024));
    EXPECT_EQ(violation(R"({"v":"0123456789"})", s), kOk);
    EXPECT_EQ(violation(R"({"v":"012345678"})", s), V("/v", "must be at least 10 characters"));
    EXPECT_EQ(violation(R"({"v":""})", one("v", js::string().min_chars(1))),
              V("/v", "must be at least 1 character"));
    // Multi-byte: 9 two-byte characters are 18 bytes but only 9 characters.
    EXPECT_EQ(violation("{\"v\":\"" + repeat("\xc3\xa9", 9) + "\"}", s),
              V("/v", "must be at least 10 characters"));
}

TEST(JsonSchema, ExactLengthMessage) {
    auto s = one("v", js::string().min_chars(3).max_chars(3));
    EXPECT_EQ(violation(R"({"v":"abc"})", s), kOk);
    EXPECT_EQ(violation(R"({"v":"abcd"})", s), V("/v", "must be exactly 3 characters"));
    EXPECT_EQ(violation(R"({"v":"ab"})", s), V("/v", "must be exactly 3 characters"));
}

TEST(JsonSchema, IntegerDefaultSafeRange) {
    auto s = one("v", js::integer());
    EXPECT_EQ(violation(R"({"v":9007199254740991})", s), kOk);
    EXPECT_EQ(violation(R"({"v":-9007199254740991})", s), kOk);
    EXPECT_EQ(violation(R"({"v":9007199254740992})", s),
              V("/v", "must be at most 9007199254740991"));
    EXPECT_EQ(violation(R"({"v":-9007199254740992})", s),
              V("/v", "must be at least -9007199254740991"));
    EXPECT_EQ(violation(R"({"v":18446744073709551615})", s),
              V("/v", "must be at most 9007199254740991"));
    EXPECT_EQ(violation(R"({"v":100000000000000000000})", s), V("/v", "must be an integer"));
}

TEST(JsonSchema, IntegerRejectsFractionAndExponentLiterals) {
    auto s = one("v", js::integer());
    EXPECT_EQ(violation(R"({"v":1.0})", s), V("/v", "must be an integer"));
    EXPECT_EQ(violation(R"({"v":1e2})", s), V("/v", "must be an integer"));
    EXPECT_EQ(violation(R"({"v":1.5})", s), V("/v", "must be an integer"));
    EXPECT_EQ(violation(R"({"v":"1"})", s), V("/v", "must be an integer"));
}

TEST(JsonSchema, IntegerMinMaxEdges) {
    auto s = one("v", js::integer().min(1).max(9007199254740991LL));
    EXPECT_EQ(violation(R"({"v":1})", s), kOk);
    EXPECT_EQ(violation(R"({"v":0})", s), V("/v", "must be at least 1"));
    auto t = one("v", js::integer().min(-5).max(10));
    EXPECT_EQ(violation(R"({"v":10})", t), kOk);
    EXPECT_EQ(violation(R"({"v":11})", t), V("/v", "must be at most 10"));
    EXPECT_EQ(violation(R"({"v":-5})", t), kOk);
    EXPECT_EQ(violation(R"({"v":-6})", t), V("/v", "must be at least -5"));
}

TEST(JsonSchema, ArrayItemBoundsEdges) {
    auto s = one("v", js::array(js::integer()).min_items(1).max_items(3));
    EXPECT_EQ(violation(R"({"v":[1]})", s), kOk);
    EXPECT_EQ(violation(R"({"v":[1,2,3]})", s), kOk);
    EXPECT_EQ(violation(R"({"v":[]})", s), V("/v", "must have at least 1 item"));
    EXPECT_EQ(violation(R"({"v":[1,2,3,4]})", s), V("/v", "must have at most 3 items"));
}

TEST(JsonSchema, ArrayItemViolationPointsAtElement) {
    auto s = one("v", js::array(js::string()));
    EXPECT_EQ(violation(R"({"v":["a","b",3]})", s), V("/v/2", "must be a string"));
}

TEST(JsonSchema, DistinctRejectsRepeatedValueAtItsIndex) {
    auto s = one("ids", js::array(js::string()).distinct());
    EXPECT_EQ(violation(R"({"ids":["a","b","c"]})", s), kOk);
    EXPECT_EQ(violation(R"({"ids":["a","b","a","b"]})", s),
              V("/ids/2", "must not repeat an earlier item"));
    auto ints = one("n", js::array(js::integer()).distinct());
    EXPECT_EQ(violation(R"({"n":[1,2,1]})", ints), V("/n/2", "must not repeat an earlier item"));
    // Without distinct() repeats are fine.
    EXPECT_EQ(violation(R"({"ids":["a","a"]})", one("ids", js::array(js::string()))), kOk);
}

TEST(JsonSchema, NestedArrayPointerNamesOpIndexAndField) {
    static const js::Node kCommit = js::object({
        js::req("ops", js::array(js::object({
                           js::req("type", js::string().min_chars(1).max_chars(32)),
                           js::opt("artifact_id", js::uuid()),
                       }))),
    });
    std::string ok = R"({"type":"put","artifact_id":"7d444840-9dc0-11d1-b245-5ffdce74fad2"})";
    std::string body =
        "{\"ops\":[" + ok + "," + ok + "," + ok + R"(,{"type":"put","artifact_id":"nope"}]})";
    EXPECT_EQ(violation(body, kCommit), V("/ops/3/artifact_id", "must be a UUID"));
    EXPECT_EQ(violation(R"({"ops":[{"type":"put"},{}]})", kCommit),
              V("/ops/1/type", "is required"));
}

TEST(JsonSchema, FirstViolationInDocumentOrderWins) {
    auto s = js::object(
        {js::req("a", js::integer()), js::req("b", js::string()), js::req("c", js::boolean())});
    EXPECT_EQ(violation(R"({"b":1,"a":"x"})", s), V("/b", "must be a string"));
    EXPECT_EQ(violation(R"({"a":"x","b":1})", s), V("/a", "must be an integer"));
    // Members present are checked before absent required ones are reported.
    EXPECT_EQ(violation(R"({"zz":1})", s), V("/zz", "unknown field"));
}

TEST(JsonSchema, OneOfAcceptsListedValuesOnly) {
    auto s = one("role", js::one_of({"user", "support", "admin"}));
    EXPECT_EQ(violation(R"({"role":"admin"})", s), kOk);
    EXPECT_EQ(violation(R"({"role":"Admin"})", s),
              V("/role", R"(must be one of "user", "support", "admin")"));
}

TEST(JsonSchema, ValidateRewritesEveryUuidToLowerCase) {
    auto doc = pouch::json::parse_strict(
        R"({"id":"7D444840-9DC0-11D1-B245-5FFDCE74FAD2","ids":["FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"],)"
        R"("name":"ABC"})");
    js::validate(doc, js::object({js::req("id", js::uuid()), js::req("ids", js::array(js::uuid())),
                                  js::req("name", js::string())}));
    EXPECT_STREQ(doc["id"].GetString(), "7d444840-9dc0-11d1-b245-5ffdce74fad2");
    EXPECT_STREQ(doc["ids"][0].GetString(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    EXPECT_STREQ(doc["name"].GetString(), "ABC");  // other strings keep their case
}

TEST(JsonSchema, DistinctUuidsCompareCaseInsensitively) {
    auto s = one("ids", js::array(js::uuid()).distinct());
    EXPECT_EQ(violation(R"({"ids":["7d444840-9dc0-11d1-b245-5ffdce74fad2",)"
                        R"("7D444840-9DC0-11D1-B245-5FFDCE74FAD2"]})",
                        s),
              V("/ids/1", "must not repeat an earlier item"));
}

TEST(JsonSchema, UuidFormat) {
    auto s = one("id", js::uuid());
    for (const char* good :
         {"7d444840-9dc0-11d1-b245-5ffdce74fad2",  // v1, variant b
          "01890a5d-ac96-774b-bcce-b302099a8057",  // v7
          "00000000-0000-1000-8000-000000000000",  // v1, variant 8
          "00000000-0000-8000-9000-000000000000",  // v8, variant 9
          "00000000-0000-4000-a000-000000000000",
          "00000000-0000-0000-0000-000000000000",  // nil
          "ffffffff-ffff-ffff-ffff-ffffffffffff",  // max
          "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "7D444840-9DC0-11D1-B245-5FFDCE74FAD2"}) {
        EXPECT_EQ(violation(std::string("{\"id\":\"") + good + "\"}", s), kOk) << good;
    }
    for (const char* bad :
         {"7d444840-9dc0-01d1-b245-5ffdce74fad2",   // version 0
          "7d444840-9dc0-91d1-b245-5ffdce74fad2",   // version 9
          "7d444840-9dc0-11d1-7245-5ffdce74fad2",   // variant 7
          "7d444840-9dc0-11d1-c245-5ffdce74fad2",   // variant c
          "7d4448409dc011d1b2455ffdce74fad2",       // no hyphens
          "7d444840-9dc0-11d1-b245-5ffdce74fad",    // 35 chars
          "7d444840-9dc0-11d1-b245-5ffdce74fad2a",  // 37 chars
          "7d444840-9dc0-11d1-b245-5ffdce74fag2",   // non-hex
          "{7d444840-9dc0-11d1-b245-5ffdce74fad}", "00000000-0000-0000-0000-00000000000f", ""}) {
        EXPECT_EQ(violation(std::string("{\"id\":\"") + bad + "\"}", s), V("/id", "must be a UUID"))
            << bad;
    }
}

TEST(JsonSchema, B64urlAlphabetWithoutPadding) {
    auto s = one("k", js::b64url());
    EXPECT_EQ(violation(R"({"k":"AZaz09-_"})", s), kOk);
    EXPECT_EQ(violation(R"({"k":""})", s), kOk);
    const V bad{"/k", "must be b64url (A-Z, a-z, 0-9, - and _, no padding)"};
    EXPECT_EQ(violation(R"({"k":"AAA="})", s), bad);
    EXPECT_EQ(violation(R"({"k":"a+b"})", s), bad);
    EXPECT_EQ(violation(R"({"k":"a/b"})", s), bad);
    EXPECT_EQ(violation(R"({"k":"a b"})", s), bad);
    EXPECT_EQ(violation("{\"k\":\"\xc3\xa9\"}", s), bad);
}

TEST(JsonSchema, B64urlLengthBoundsCheckedBeforeAlphabet) {
    auto s = one("k", js::b64url().min_chars(43).max_chars(43));
    EXPECT_EQ(violation("{\"k\":\"" + std::string(43, 'A') + "\"}", s), kOk);
    EXPECT_EQ(violation("{\"k\":\"" + std::string(44, 'A') + "\"}", s),
              V("/k", "must be exactly 43 characters"));
    EXPECT_EQ(violation("{\"k\":\"" + std::string(42, 'A') + "=\"}", s),
              V("/k", "must be b64url (A-Z, a-z, 0-9, - and _, no padding)"));
}

TEST(JsonSchema, DatetimeRfc3339WithZone) {
    auto s = one("t", js::datetime());
    for (const char* good :
         {"2024-02-29T23:59:59Z", "2024-01-01T00:00:00.123456+05:30", "1999-12-31t23:59:60z",
          "2023-06-01T12:00:00-00:00", "2000-02-29T00:00:00.1Z"}) {
        EXPECT_EQ(violation(std::string("{\"t\":\"") + good + "\"}", s), kOk) << good;
    }
    for (const char* bad : {"2024-01-01T00:00:00",   // no zone
                            "2024-01-01 00:00:00Z",  // space separator
                            "2023-02-29T00:00:00Z",  // not a leap year
                            "1900-02-29T00:00:00Z",  // century, not a leap year
                            "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-04-31T00:00:00Z",
                            "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:61Z",
                            "2024-01-01T00:00:00.Z",     // empty fraction
                            "2024-01-01T00:00:00+0530",  // offset without colon
                            "2024-01-01T00:00:00+24:00", "2024-01-01", "2024-1-01T00:00:00Z",
                            "2024-01-01T00:00:00ZZ"}) {
        EXPECT_EQ(violation(std::string("{\"t\":\"") + bad + "\"}", s),
                  V("/t", "must be an RFC 3339 date-time with a time zone"))
            << bad;
    }
}

TEST(JsonSchema, DatetimeBoundsFractionLength) {
    auto s = one("t", js::datetime());
    std::string at64 = "2024-01-01T00:00:00." + std::string(43, '1') + "Z";  // 64 chars
    EXPECT_EQ(violation("{\"t\":\"" + at64 + "\"}", s), kOk);
    std::string at65 = "2024-01-01T00:00:00." + std::string(44, '1') + "Z";
    EXPECT_EQ(violation("{\"t\":\"" + at65 + "\"}", s), V("/t", "must be at most 64 characters"));
}

TEST(JsonSchema, CustomCheckCompletesMessage) {
    auto s =
        one("slug", js::string().max_chars(8).check(
                        [](std::string_view v) { return v.find(' ') == std::string_view::npos; },
                        "without spaces"));
    EXPECT_EQ(violation(R"({"slug":"ab"})", s), kOk);
    EXPECT_EQ(violation(R"({"slug":"a b"})", s), V("/slug", "must be without spaces"));
}

TEST(JsonSchema, ModifiersReturnCopiesAndLeaveOriginalUnchanged) {
    js::Node base = js::string().max_chars(3);
    js::Node longer = base.max_chars(5);
    EXPECT_EQ(violation(R"({"v":"abcd"})", one("v", base)),
              V("/v", "must be at most 3 characters"));
    EXPECT_EQ(violation(R"({"v":"abcd"})", one("v", longer)), kOk);
}

TEST(JsonSchema, ModifierOnWrongKindIsAProgrammingError) {
    EXPECT_THROW(js::integer().max_chars(3), std::logic_error);
    EXPECT_THROW(js::string().max(3), std::logic_error);
    EXPECT_THROW(js::string().distinct(), std::logic_error);
}

TEST(JsonSchema, ValidatesNonObjectRootAgainstSchema) {
    auto doc = pouch::json::parse_strict_any("[1]");
    EXPECT_NO_THROW(js::validate(doc, js::array(js::integer())));
    try {
        js::validate(doc, js::object({}));
        FAIL() << "expected validation_failed";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(e.field, "");
        EXPECT_EQ(e.message, "must be an object");
    }
}

namespace {

// RFC 9449 example key (decisions §12): on P-256.
const std::string kX = "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs";
const std::string kY = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA";

std::string jwk_body(const std::string& members) {
    return "{\"key\":{" + members + "}}";
}

}  // namespace

TEST(JsonSchemaJwk, AcceptsP256PublicKeyOnTheCurve) {
    auto s = one("key", js::jwk());
    EXPECT_EQ(
        violation(jwk_body(R"("kty":"EC","crv":"P-256","x":")" + kX + R"(","y":")" + kY + "\""), s),
        kOk);
}

TEST(JsonSchemaJwk, RejectsPointOffTheCurve) {
    auto s = one("key", js::jwk());
    std::string y = kY;
    y[42] = (y[42] == 'A' ? 'B' : 'A');
    EXPECT_EQ(
        violation(jwk_body(R"("kty":"EC","crv":"P-256","x":")" + kX + R"(","y":")" + y + "\""), s),
        V("/key", "must be a point on the P-256 curve"));
}

TEST(JsonSchemaJwk, RejectsOtherKeyTypesCurvesAndPrivateMembers) {
    auto s = one("key", js::jwk());
    std::string xy = R"(,"x":")" + kX + R"(","y":")" + kY + "\"";
    EXPECT_EQ(violation(jwk_body(R"("kty":"RSA","crv":"P-256")" + xy), s),
              V("/key/kty", R"(must be one of "EC")"));
    EXPECT_EQ(violation(jwk_body(R"("kty":"EC","crv":"P-384")" + xy), s),
              V("/key/crv", R"(must be one of "P-256")"));
    EXPECT_EQ(violation(jwk_body(R"("kty":"EC","crv":"P-256")" + xy + R"(,"d":"AAAA")"), s),
              V("/key/d", "unknown field"));
    EXPECT_EQ(violation(jwk_body(R"("kty":"EC","crv":"P-256","x":")" + kX + "\""), s),
              V("/key/y", "is required"));
}

TEST(JsonSchemaJwk, CoordinatesMustBeExactly43B64urlCharacters) {
    auto s = one("key", js::jwk());
    std::string pre = R"("kty":"EC","crv":"P-256","y":")" + kY + R"(","x":")";
    EXPECT_EQ(violation(jwk_body(pre + kX.substr(0, 42) + "\""), s),
              V("/key/x", "must be exactly 43 characters"));
    EXPECT_EQ(violation(jwk_body(pre + kX + "A\""), s),
              V("/key/x", "must be exactly 43 characters"));
    std::string padded = kX.substr(0, 42) + "=";
    EXPECT_EQ(violation(jwk_body(pre + padded + "\""), s),
              V("/key/x", "must be b64url (A-Z, a-z, 0-9, - and _, no padding)"));
}
