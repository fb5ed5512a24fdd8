// json_label_test.cpp -- the label rule of decisions §15 (common/json/label.h) at every edge:
// 64 and 65 scalar values with one-, two- and four-byte characters, NFC against NFD input,
// each forbidden class and its neighbours, white space at either end only; and the schema's
// label() node, which answers invalid_field where every other rule answers validation_failed.
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/http/error.h"
#include "common/json/label.h"
#include "common/json/parse.h"
#include "common/json/schema.h"

using pouch::json::label_problem;
namespace js = pouch::json::schema;

namespace {

std::string times(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

// A code point as UTF-8.
std::string u(char32_t c) {
    std::string out;
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
    return out;
}

std::string problem(const std::string& s) {
    return label_problem(s).value_or("");
}

}  // namespace

TEST(Label, AcceptsOrdinaryNames) {
    for (std::string s :
         {"laptop", "Ada's MacBook Pro", "x", "build-01 (CI)", "r\xc3\xa9sum\xc3\xa9",
          "\xe6\x9d\xb1\xe4\xba\xac", "\xf0\x9f\x98\x80 phone", "a b",
          "a\xc2\xa0"
          "b"})
        EXPECT_EQ(problem(s), "") << s;
}

TEST(Label, SixtyFourScalarValuesPassAndSixtyFiveFailWhateverTheirBytes) {
    for (std::string c : {std::string("a"), u(0xE9), u(0x6771), u(0x1F600)}) {
        EXPECT_EQ(problem(times(c, 64)), "") << c;
        EXPECT_EQ(problem(times(c, 65)), "be at most 64 characters") << c;
    }
    EXPECT_EQ(times(u(0x1F600), 64).size(), 256u);  // 64 scalars, 256 bytes: the count is not bytes
}

TEST(Label, EmptyIsRefused) {
    EXPECT_EQ(problem(""), "be at least 1 character");
}

TEST(Label, NfdInputIsRefusedAndItsNfcFormAccepted) {
    EXPECT_EQ(problem("e" + u(0x301)), "be in Unicode normalization form C (NFC)");  // e + acute
    EXPECT_EQ(problem(u(0xE9)), "");                                                 // é
    EXPECT_EQ(problem("caf" + std::string("e") + u(0x301)),
              "be in Unicode normalization form C (NFC)");
    EXPECT_EQ(problem(u(0x1100) + u(0x1161)), "be in Unicode normalization form C (NFC)");  // jamo
    EXPECT_EQ(problem(u(0xAC00)), "");                                                      // 가
    EXPECT_EQ(problem(u(0x212B)), "be in Unicode normalization form C (NFC)");  // Angstrom sign
    // 32 NFD é are 64 scalar values: within the length, refused as not NFC; 33 are too long.
    EXPECT_EQ(problem(times("e" + u(0x301), 32)), "be in Unicode normalization form C (NFC)");
    EXPECT_EQ(problem(times("e" + u(0x301), 33)), "be at most 64 characters");
}

TEST(Label, EveryControlCharacterIsRefusedAndItsNeighboursAreNot) {
    for (char32_t c : {0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9B, 0x9F}) {
        char want[64];
        std::snprintf(want, sizeof want, "not contain a control character (U+%04X)",
                      static_cast<unsigned>(c));
        EXPECT_EQ(problem("a" + u(c) + "b"), want) << static_cast<unsigned>(c);
    }
    EXPECT_EQ(problem("a" + u(0x20) + "b"), "");
    EXPECT_EQ(problem("a" + u(0x7E) + "b"), "");
    EXPECT_EQ(problem("a" + u(0xA0) + "b"), "");
    EXPECT_EQ(problem("a" + u(0xA1) + "b"), "");
}

TEST(Label, EveryBidiControlIsRefusedAndItsNeighboursAreNot) {
    for (char32_t c : {0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066,
                       0x2067, 0x2068, 0x2069}) {
        char want[64];
        std::snprintf(want, sizeof want, "not contain a bidi control (U+%04X)",
                      static_cast<unsigned>(c));
        EXPECT_EQ(problem("a" + u(c) + "b"), want) << static_cast<unsigned>(c);
    }
    for (char32_t c : {0x061B, 0x061D, 0x200D, 0x2010, 0x2029, 0x202F, 0x2065, 0x206A})
        EXPECT_EQ(problem("a" + u(c) + "b"), "") << static_cast<unsigned>(c);
}

TEST(Label, SlashesAreRefusedAnywhere) {
    for (std::string s : {"x/../../../../SOMEWHERE/PWNED", "/", "a\\b", "\\", "a/", "..\\x"})
        EXPECT_EQ(problem(s), "not contain '/' or '\\'") << s;
    EXPECT_EQ(problem(".."), "");  // dots alone are a name; the clients reduce labels further
}

TEST(Label, WhiteSpaceAtEitherEndIsRefusedInsideItIsNot) {
    for (char32_t ws :
         {0x20, 0xA0, 0x1680, 0x2002, 0x2003, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}) {
        EXPECT_EQ(problem(u(ws) + "a"), "not start or end with white space") << unsigned(ws);
        EXPECT_EQ(problem("a" + u(ws)), "not start or end with white space") << unsigned(ws);
        EXPECT_EQ(problem("a" + u(ws) + "b"), "") << unsigned(ws);
    }
    EXPECT_EQ(problem(" "), "not start or end with white space");
    EXPECT_EQ(problem(u(0x200B) + "a"), "");  // zero width space is not White_Space
    // U+2000 is white space, and not NFC (it decomposes to U+2002): in the middle, NFC says no.
    EXPECT_EQ(problem("a" + u(0x2000) + "b"), "be in Unicode normalization form C (NFC)");
}

TEST(Label, AMegabyteStringIsRefusedByItsLengthFirst) {
    EXPECT_EQ(problem(std::string(1 << 20, 'a')), "be at most 64 characters");
}

namespace {

// {code, field, message} of the error validate() throws for body, or all empty.
struct Refusal {
    std::string code, field, message;
    bool operator==(const Refusal&) const = default;
};
Refusal refusal(const std::string& body) {
    static const js::Node kSchema =
        js::object({js::req("name", js::label()), js::opt("n", js::integer())});
    auto doc = pouch::json::parse_strict(body);
    try {
        js::validate(doc, kSchema);
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 400);
        return {std::string(e.code), e.field, e.message};
    }
    return {};
}

}  // namespace

TEST(Label, SchemaLabelAnswersInvalidFieldWithThePointer) {
    EXPECT_EQ(refusal(R"({"name":"laptop"})"), Refusal{});
    EXPECT_EQ(refusal(R"({"name":"a/b"})"),
              (Refusal{"invalid_field", "/name", "must not contain '/' or '\\'"}));
    EXPECT_EQ(refusal(R"({"name":""})"),
              (Refusal{"invalid_field", "/name", "must be at least 1 character"}));
    EXPECT_EQ(refusal(R"({"name":"a\u0000b"})"),
              (Refusal{"invalid_field", "/name", "must not contain a control character (U+0000)"}));
    EXPECT_EQ(refusal(R"({"name":"e\u0301"})"),
              (Refusal{"invalid_field", "/name", "must be in Unicode normalization form C (NFC)"}));
    EXPECT_EQ(refusal("{\"name\":\"" + std::string(65, 'x') + "\"}"),
              (Refusal{"invalid_field", "/name", "must be at most 64 characters"}));
}

TEST(Label, SchemaLabelKeepsValidationFailedForTheWrongType) {
    EXPECT_EQ(refusal(R"({"name":5})"),
              (Refusal{"validation_failed", "/name", "must be a string"}));
    EXPECT_EQ(refusal(R"({"name":null})"),
              (Refusal{"validation_failed", "/name", "must not be null"}));
    EXPECT_EQ(refusal(R"({})"), (Refusal{"validation_failed", "/name", "is required"}));
}
