// db_array_test.cpp -- common/db/array.h's binary arrays (array_recv's format) sent as
// binary-format parameters to the real PostgreSQL (POUCH_TEST_DATABASE_URL; skipped when unset)
// and read back element by element: empty arrays, NULL elements, non-ASCII text, a 4 MB
// element, int8's extremes; a wrong element type and invalid UTF-8 are refused by the server.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/db/array.h"
#include "common/db/pool.h"
#include "common/types/error.h"
#include "tests/unit/test_env.h"

namespace pouch::db {
namespace {

using Texts = std::vector<std::optional<std::string>>;

// Each element of the array parameter $1 (of `type`) as text, in order, NULL as nullopt, with
// the array's cardinality.
struct Back {
    long long cardinality = -1;
    Texts items;
};
Back read_back(Conn& c, const char* name, const char* type, const std::string& array) {
    std::string sql = std::string("SELECT cardinality($1::") + type +
                      ")::text, x::text FROM (SELECT 1) one" + " LEFT JOIN unnest($1::" + type +
                      ") WITH ORDINALITY AS t(x, i) ON true ORDER BY i";
    Result r = c.exec(Statement{name, sql.c_str()}, {array}, {1});
    Back b;
    for (int i = 0; i < r.rows(); ++i) {
        b.cardinality = std::stoll(r.text(i, 0));
        if (r.rows() == 1 && b.cardinality == 0) break;  // the LEFT JOIN's empty row
        if (r.is_null(i, 1))
            b.items.push_back(std::nullopt);
        else
            b.items.push_back(r.text(i, 1));
    }
    return b;
}

class DbArray : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string u = ::pouch::testing::env_url("POUCH_TEST_DATABASE_URL");
        if (u.empty()) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set";
        conn = std::make_unique<Conn>(u);
        ASSERT_TRUE(conn->ensure_connected()) << conn->last_error();
    }
    std::unique_ptr<Conn> conn;
};

TEST_F(DbArray, TextElementsComeBackAsSentWithNullsAndNonAscii) {
    Texts in{std::string("plain"),
             std::nullopt,
             std::string(""),
             std::string("quote \" back \\ {,}"),
             std::string("\xF0\x9F\x98\x80 \xE2\x80\xAE rtl \xC3\xA9"),
             std::string("NULL")};
    Back b = read_back(*conn, "t_arr_text", "text[]", binary_text_array(in));
    EXPECT_EQ(b.cardinality, 6);
    EXPECT_EQ(b.items, in);
}

TEST_F(DbArray, AnEmptyArrayHasNoElements) {
    for (const std::string& a :
         {binary_text_array({}), binary_int8_array({}), binary_bool_array({})}) {
        EXPECT_EQ(a.size(), 12u);  // ndim 0, flags, element oid
    }
    EXPECT_EQ(read_back(*conn, "t_arr_empty_text", "text[]", binary_text_array({})).cardinality, 0);
    EXPECT_EQ(read_back(*conn, "t_arr_empty_int8", "int8[]", binary_int8_array({})).cardinality, 0);
    EXPECT_EQ(read_back(*conn, "t_arr_empty_bool", "bool[]", binary_bool_array({})).cardinality, 0);
    Result r = conn->exec(Statement{"t_arr_empty_eq", "SELECT $1::text[] = '{}'::text[]"},
                          {binary_text_array({})}, {1});
    EXPECT_EQ(r.text(0, 0), "t");
}

TEST_F(DbArray, AFourMegabyteElementComesBackWhole) {
    std::string big(4 * 1024 * 1024, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('A' + i % 26);
    Texts in{std::string("before"), big, std::string("after")};
    Back b = read_back(*conn, "t_arr_big", "text[]", binary_text_array(in));
    EXPECT_EQ(b.cardinality, 3);
    ASSERT_EQ(b.items.size(), 3u);
    EXPECT_EQ(b.items[1]->size(), big.size());
    EXPECT_TRUE(b.items == in);
}

TEST_F(DbArray, Int8ElementsKeepTheirSignAndExtremes) {
    std::vector<std::optional<long long>> in{
        0, 1, -1, std::nullopt, 9223372036854775807LL, -9223372036854775807LL - 1, 4294967296LL};
    Back b = read_back(*conn, "t_arr_int8", "int8[]", binary_int8_array(in));
    EXPECT_EQ(b.items, (Texts{"0", "1", "-1", std::nullopt, "9223372036854775807",
                              "-9223372036854775808", "4294967296"}));
}

TEST_F(DbArray, BoolElements) {
    Back b =
        read_back(*conn, "t_arr_bool", "bool[]", binary_bool_array({true, false, std::nullopt}));
    EXPECT_EQ(b.items, (Texts{"true", "false", std::nullopt}));
}

TEST_F(DbArray, TheServerRefusesAnotherElementTypeAndInvalidUtf8) {
    try {
        conn->exec(Statement{"t_arr_wrong_type", "SELECT cardinality($1::int8[])"},
                   {binary_text_array({std::string("1")})}, {1});
        FAIL() << "a text[] accepted as int8[]";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate, "42804");  // datatype_mismatch: wrong element type
    }
    try {
        conn->exec(Statement{"t_arr_bad_utf8", "SELECT cardinality($1::text[])"},
                   {binary_text_array({std::string("\xC3\x28")})}, {1});
        FAIL() << "invalid UTF-8 accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate, "22021");  // character_not_in_repertoire
    }
}

TEST_F(DbArray, FormatsMustMatchTheParameters) {
    EXPECT_THROW(
        conn->exec(Statement{"t_arr_formats", "SELECT $1::text, $2::text"}, {"a", "b"}, {0}),
        std::logic_error);
}

}  // namespace
}  // namespace pouch::db
