// fuzz_regressions_test.cpp -- inputs found by the libFuzzer targets (tests/fuzz/, `make fuzz`),
// kept as ordinary tests so the default and sanitizer builds replay them. Each test names the
// target that found it and states the behaviour the fix guarantees.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "common/json/jcs.h"
#include "common/json/parse.h"

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
    auto doc = parse_strict_any("[0, -0, 7, -9007199254740991, 18446744073709551615, 56.0, 1e21, 2e-3]");
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
