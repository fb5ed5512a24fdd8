// json_out_test.cpp -- the response builder: member order, nesting, raw values, escaping.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json/out.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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

// Long strings with nothing to escape are copied whole (out.cpp): every string, long or short,
// plain or with a quote, a backslash or a control character at any offset, still comes out
// exactly as RapidJSON's writer writes it, in a value and in an array.
TEST(JsonOut, LongPlainStringsAreWrittenAsTheWriterWould) {
    auto reference = [](const std::string& v) {
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        w.StartObject();
        w.Key("k");
        w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()), true);
        w.Key("a");
        w.StartArray();
        w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()), true);
        w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()), true);
        w.EndArray();
        w.EndObject();
        return std::string(buf.GetString(), buf.GetSize());
    };
    auto ours = [](const std::string& v) {
        Out o;
        o.kv("k", v).key("a").arr().str(v).str(v).end_arr();
        return o.done();
    };
    const std::string base(80, 'A');
    EXPECT_EQ(ours(base), reference(base));
    EXPECT_EQ(quote(base), "\"" + base + "\"");
    for (const char* odd : {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "/"}) {
        for (size_t at = 0; at <= base.size(); ++at) {
            std::string v = base;
            v.insert(at, odd);
            ASSERT_EQ(ours(v), reference(v)) << "at " << at;
        }
    }
}

// quote() is one pass of its own (the CLI's journal quotes megabytes of commit body with it):
// byte for byte what RapidJSON's writer writes, for every byte value, an escape at every offset
// of a 16-byte block, runs of every length around it; and it reads back as what it quoted.
TEST(JsonOut, QuoteWritesWhatTheWriterWrites) {
    std::string every;
    for (int c = 0; c < 256; ++c) every.push_back(static_cast<char>(c));
    std::vector<std::string> all = {
        "",
        "plain",
        R"({"ops":[{"envelope":"abc-_","name":"a\"b\\c"}]})",
        every,
        every + every + "tail",
        std::string("\0nul\0", 6) + "\x7f\xc3\xa9\n\t",
        std::string(100000, 'x') + "\"",
    };
    for (size_t k = 0; k < 40; ++k)
        for (char c : {'"', '\\', '\x01', '\x1f'})
            all.push_back(std::string(k, 'a') + c + std::string(k, '\x80'));
    for (const auto& s : all) {
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), true);
        std::string text = quote(s);
        EXPECT_EQ(text, std::string(buf.GetString(), buf.GetSize()));
        rapidjson::Document d;
        d.Parse(text.data(), text.size());
        ASSERT_FALSE(d.HasParseError());
        EXPECT_EQ(std::string(d.GetString(), d.GetStringLength()), s);
    }
}
