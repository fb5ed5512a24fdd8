// json_out_test.cpp -- the response builder: member order, nesting, raw values, escaping.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/json/out.h"

using pouch::json::Out;
using pouch::json::quote;

TEST(JsonOut, EmptyRootIsEmptyObject) {
    Out o;
    EXPECT_EQ(o.done(), "{}");
}

TEST(JsonOut, WritesMembersInOrder) {
    Out o;
    o.kv("user_id", "u1").kv("pouches", 3).kv("big", 9007199254740991LL).kv("admin", false);
    o.kv_null("gone").kv("opt", std::optional<std::string>{}).kv("s", std::string("x"));
    EXPECT_EQ(o.done(), R"({"user_id":"u1","pouches":3,"big":9007199254740991,"admin":false,)"
                        R"("gone":null,"opt":null,"s":"x"})");
}

TEST(JsonOut, NestsArraysAndObjects) {
    Out o;
    o.key("items").arr();
    o.obj().kv("a", 1).end_obj();
    o.str("s").num(-2).boolean(true).null();
    o.end_arr();
    o.key("o").obj().key("inner").arr().end_arr().end_obj();
    EXPECT_EQ(o.done(), R"({"items":[{"a":1},"s",-2,true,null],"o":{"inner":[]}})");
}

TEST(JsonOut, RawInsertsSerializedValueVerbatim) {
    Out o;
    o.key("plan").raw(R"({"tier":"free","quota":[1,2]})").kv("after", 1);
    o.key("list").arr().raw("1").raw("{}").end_arr();
    EXPECT_EQ(o.done(), R"({"plan":{"tier":"free","quota":[1,2]},"after":1,"list":[1,{}]})");
}

TEST(JsonOut, EscapesStringsAndKeys) {
    Out o;
    o.kv("q\"k", "line\nquote\" back\\ ctl\x01 \xc3\xa9");
    EXPECT_EQ(o.done(), "{\"q\\\"k\":\"line\\nquote\\\" back\\\\ ctl\\u0001 \xc3\xa9\"}");
}

TEST(JsonOut, DoneIsIdempotentAndSizeTracksBuffer) {
    Out o;
    o.kv("a", 1);
    EXPECT_EQ(o.size(), 6u);  // {"a":1
    EXPECT_EQ(o.done(), R"({"a":1})");
    EXPECT_EQ(o.done(), R"({"a":1})");
}

TEST(JsonOut, QuoteProducesStringLiteral) {
    EXPECT_EQ(quote("plain"), "\"plain\"");
    EXPECT_EQ(quote("a\"b\\c\td"), "\"a\\\"b\\\\c\\td\"");
    EXPECT_EQ(quote(std::string_view("nul\0x", 5)), "\"nul\\u0000x\"");
    EXPECT_EQ(quote(""), "\"\"");
}
