// fuzz_regressions_test.cpp -- inputs found by the libFuzzer targets (tests/fuzz/, `make fuzz`),
// kept as ordinary tests so the default and sanitizer builds replay them. Each test names the
// target that found it and states the behaviour the fix guarantees.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "common/types/error.h"

using pouch::json::jcs;
using pouch::json::parse_strict;
using pouch::json::parse_strict_any;

// fuzz_jcs / fuzz_json_schema: "0e40" made RapidJSON 1.1's full-precision strtod call
// __builtin_clzll(0) (UBSan: "passing zero to clz()"). A zero significand is exactly zero.
TEST(FuzzRegressions, ZeroWithLargeExponentParsesAsZeroDouble) {
    auto doc = parse_strict_any("[0e40, -0E+300, 0.0e308]");
    ASSERT_EQ(doc.Size(), 3u);
    for (const auto& v : doc.GetArray()) {
        ASSERT_TRUE(v.IsDouble());
        EXPECT_EQ(v.GetDouble(), 0.0);
    }
    EXPECT_TRUE(std::signbit(doc[1].GetDouble()));
    EXPECT_EQ(*jcs(doc), "[0,0,0]");
}

TEST(FuzzRegressions, ZeroWithLongFractionParsesAsZeroDouble) {
    auto doc = parse_strict(R"({"c":0.0000000000000000000000000000000000000000,"d":-0.000})");
    ASSERT_TRUE(doc["c"].IsDouble());
    EXPECT_EQ(doc["c"].GetDouble(), 0.0);
    EXPECT_TRUE(std::signbit(doc["d"].GetDouble()));
}

// The rewrite touches zero literals only: other numbers keep their kind and exact value.
TEST(FuzzRegressions, NumbersKeepTheirKindAfterTheZeroRewrite) {
    auto doc =
        parse_strict_any("[0, -0, 7, -9007199254740991, 18446744073709551615, 56.0, 1e21, 2e-3]");
    EXPECT_TRUE(doc[0].IsInt());
    EXPECT_EQ(doc[0].GetInt(), 0);
    EXPECT_TRUE(doc[1].IsNumber());
    EXPECT_EQ(doc[2].GetInt(), 7);
    EXPECT_EQ(doc[3].GetInt64(), -9007199254740991LL);
    EXPECT_EQ(doc[4].GetUint64(), 18446744073709551615ULL);
    EXPECT_TRUE(doc[5].IsDouble());
    EXPECT_EQ(doc[5].GetDouble(), 56.0);
    EXPECT_EQ(doc[6].GetDouble(), 1e21);
    EXPECT_EQ(doc[7].GetDouble(), 2e-3);
}

// fuzz_json_schema: a request body ending inside a multi-byte UTF-8 sequence ({"a":"x\xF0)
// made RapidJSON's insitu reader, which validates every trail byte before judging a
// sequence, read and write up to 3 bytes past the body (AddressSanitizer: heap-buffer-
// overflow). parse_request pads the body with NULs while it reads; each such ending is
// refused as invalid UTF-8 and the body keeps its size (make SAN=address replays it).
TEST(FuzzRegressions, RequestBodyEndingInsideAMultiByteSequenceIsReadWithinItsBytes) {
    for (std::string tail : {"\xC3", "\xE2", "\xE2\x82", "\xF0", "\xF0\x9F", "\xF0\x9F\x98"}) {
        std::string body = "{\"a\":\"x" + tail;
        body.shrink_to_fit();
        const size_t size = body.size();
        try {
            pouch::json::parse_request(body, SIZE_MAX);
            ADD_FAILURE() << "accepted";
        } catch (const pouch::Error& e) {
            EXPECT_EQ(e.code, "invalid_json");
            EXPECT_EQ(e.message.rfind("invalid UTF-8", 0), 0u) << e.message;
        }
        EXPECT_EQ(body.size(), size);
    }
}

// fuzz_jcs: 95 significant digits and "e+304" made RapidJSON 1.1's full-precision strtod read
// its table of cached powers of ten past the end (UBSan: index 90 out of bounds for
// 'const uint64_t[87]'). A literal whose first significant digit lies beyond 10^308 or below
// 10^-324 is refused as out of range before RapidJSON converts it; the edges still parse.
TEST(FuzzRegressions, NumbersBeyondTheDoubleRangeAreRefusedBeforeConversion) {
    const std::string found =
        "33344444444444444444444444444444444444444444444444444444444444444444444444444444444433333e"
        "+304";  // as the fuzzer wrote it
    for (std::string n : {found, "-" + found, std::string("10e308"), std::string("1e-325"),
                          std::string("0.01e-323"), "0." + std::string(330, '0') + "1"}) {
        try {
            parse_strict_any("[" + n + "]");
            ADD_FAILURE() << n << " accepted";
        } catch (const pouch::Error& e) {
            EXPECT_EQ(e.message, n.size() > 100 ? "a number literal longer than 100 characters"
                                                : "number out of range")
                << n;
        }
    }
    auto doc =
        parse_strict_any("[1e308, 1.7976931348623157e308, 4.9e-324, 1e-324, 0.001e-321, 10e307]");
    EXPECT_EQ(doc[0].GetDouble(), 1e308);
    EXPECT_EQ(doc[1].GetDouble(), 1.7976931348623157e308);
    EXPECT_GT(doc[2].GetDouble(), 0.0);
    EXPECT_EQ(doc[5].GetDouble(), 1e308);
}
