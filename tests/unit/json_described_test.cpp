// json_described_test.cpp -- a struct described once (common/json/described.h): the schema
// derived from it refuses what a hand-written one refused (missing, unknown, null where not
// nullable, out of bounds), the decoder fills every kind of member, and the writer writes
// them in declaration order with null (or nothing, for omit()) for an empty optional.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json/described.h"
#include "common/json/parse.h"
#include "common/types/error.h"

namespace json = pouch::json;
namespace js = pouch::json::schema;

namespace {

struct Inner {
    std::string id;
    std::optional<long long> n;
    static auto json_fields() {
        return std::tuple{json::field("id", &Inner::id, js::uuid()),
                          json::field("n", &Inner::n, js::integer().min(1).nullable())};
    }
};

struct Outer {
    std::string name;
    int count = 0;
    bool flag = false;
    std::optional<std::string> note;
    std::vector<std::string> tags;
    std::vector<Inner> items;
    std::optional<Inner> extra;
    json::Raw raw;
    static auto json_fields() {
        return std::tuple{
            json::field("name", &Outer::name, js::string().min_chars(1).max_chars(3)),
            json::field("count", &Outer::count),
            json::field("flag", &Outer::flag),
            json::field("note", &Outer::note),
            json::field("tags", &Outer::tags),
            json::field("items", &Outer::items, js::array(json::schema_of<Inner>()).max_items(2)),
            json::field("extra", &Outer::extra).omit(),
            json::field("raw", &Outer::raw, js::object({js::req("k", js::boolean())})),
        };
    }
};

const char* kId = "0190F2A8-1B2C-7D3E-8F40-5A6B7C8D9E0F";

std::string body(const std::string& members) {
    return "{\"name\":\"ab\",\"count\":3,\"flag\":true,\"tags\":[\"x\"],\"items\":[{\"id\":\"" +
           std::string(kId) + "\"}],\"raw\":{\"k\":false}" + members + "}";
}

// The code and pointer validation refuses `text` with, or "" when it passes.
std::string refusal(const std::string& text) {
    auto doc = json::parse_strict(text);
    try {
        js::validate(doc, json::schema_of<Outer>());
    } catch (const pouch::Error& e) {
        return std::string(e.code) + " " + e.field;
    } catch (const std::exception& e) {
        return std::string("unexpected: ") + e.what();
    }
    return "";
}

TEST(JsonDescribed, TheDerivedSchemaIsStrict) {
    EXPECT_EQ(refusal(body("")), "");
    EXPECT_EQ(refusal(body(",\"note\":\"n\",\"extra\":{\"id\":\"" + std::string(kId) + "\"}")), "");
    // Required unless optional; unknown members refused; null only where nullable().
    EXPECT_EQ(refusal("{\"count\":1}"), "validation_failed /name");
    EXPECT_EQ(refusal(body(",\"other\":1")), "validation_failed /other");
    EXPECT_EQ(refusal(body(",\"note\":null")), "validation_failed /note");
    // Bounds at the edge and one past.
    EXPECT_EQ(refusal(body("").replace(9, 2, "abc")), "");
    EXPECT_EQ(refusal(body("").replace(9, 2, "abcd")), "validation_failed /name");
    EXPECT_EQ(refusal(body(",\"extra\":{\"id\":\"x\"}")), "validation_failed /extra/id");
    EXPECT_EQ(refusal(body(",\"extra\":{\"id\":\"" + std::string(kId) + "\",\"n\":0}")),
              "validation_failed /extra/n");
    EXPECT_EQ(refusal(body("").replace(body("").find("{\"k\":false}"), 11, "{\"k\":1}")),
              "validation_failed /raw/k");
}

TEST(JsonDescribed, DecodeFillsEveryKindOfMember) {
    auto doc = json::parse_strict(body(",\"note\":\"n\",\"extra\":{\"id\":\"" + std::string(kId) +
                                       "\",\"n\":null}"));
    js::validate(doc, json::schema_of<Outer>());
    Outer o = json::decode<Outer>(doc);
    EXPECT_EQ(o.name, "ab");
    EXPECT_EQ(o.count, 3);
    EXPECT_TRUE(o.flag);
    EXPECT_EQ(o.note, "n");
    EXPECT_EQ(o.tags, std::vector<std::string>{"x"});
    ASSERT_EQ(o.items.size(), 1u);
    EXPECT_EQ(o.items[0].id, "0190f2a8-1b2c-7d3e-8f40-5a6b7c8d9e0f");  // canonical (§13)
    EXPECT_EQ(o.items[0].n, std::nullopt);
    ASSERT_TRUE(o.extra);
    EXPECT_EQ(o.extra->n, std::nullopt);
    EXPECT_EQ(o.raw.text, "{\"k\":false}");
}

TEST(JsonDescribed, WritesInDeclarationOrder) {
    Outer o{.name = "a\"b", .count = 2, .flag = false, .note = std::nullopt, .tags = {"t"},
            .items = {{.id = "i", .n = 7}}, .extra = std::nullopt, .raw = {"[1,2]"}};
    EXPECT_EQ(json::to_json(o),
              "{\"name\":\"a\\\"b\",\"count\":2,\"flag\":false,\"note\":null,\"tags\":[\"t\"],"
              "\"items\":[{\"id\":\"i\",\"n\":7}],\"raw\":[1,2]}");
    o.extra = Inner{.id = "e", .n = std::nullopt};
    EXPECT_NE(json::to_json(o).find(",\"extra\":{\"id\":\"e\",\"n\":null},"), std::string::npos);
    EXPECT_EQ(json::to_json(std::vector<Inner>{{.id = "a", .n = 1}, {.id = "b", .n = {}}}),
              "[{\"id\":\"a\",\"n\":1},{\"id\":\"b\",\"n\":null}]");
}

}  // namespace
