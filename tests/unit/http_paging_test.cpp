// http_paging_test.cpp -- the one cursor design (common/paging/paging.h): cursors round-trip,
// are bound to their list, refuse keys of the wrong kind, and pages stop at the limit or the
// 4 MiB budget with next_cursor naming the last item shown.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/paging/paging.h"

namespace pouch {
namespace {

using paging::Key;
using paging::Keys;
using paging::List;

const std::string kId = "7d444840-9dc0-11d1-b245-5ffdce74fad2";

std::string b64(const std::string& s) {
    return crypto::b64url_encode(s);
}

TEST(Paging, CursorRoundTripsItsKeys) {
    List list("devices/acc", {Key::natural, Key::uuid});
    std::string c = list.encode({"1700000000000000", kId});
    EXPECT_EQ(c, b64("devices/acc|1700000000000000|" + kId));
    EXPECT_EQ(list.decode(c), (Keys{"1700000000000000", kId}));
}

TEST(Paging, CursorOfAnotherListIsRefused) {
    List devices("devices/acc", {Key::natural, Key::uuid});
    List pouches("pouches/acc", {Key::natural, Key::uuid});
    List other_account("devices/acc2", {Key::natural, Key::uuid});
    std::string c = devices.encode({"5", kId});
    EXPECT_EQ(pouches.decode(c), std::nullopt);
    EXPECT_EQ(other_account.decode(c), std::nullopt);
    // A scope that is a prefix of another's is not confused with it.
    List prefix("devices/ac", {Key::natural, Key::uuid});
    EXPECT_EQ(prefix.decode(c), std::nullopt);
}

TEST(Paging, KeysOfTheWrongKindOrCountAreRefused) {
    List list("s", {Key::positive, Key::uuid});
    for (const std::string& raw : std::vector<std::string>{
             "s|0|" + kId, "s|-1|" + kId, "s|01|" + kId, "s|+1|" + kId, "s|9007199254740992|" + kId,
             "s|1|" + kId + "|2", "s|1", "s|1|7D444840-9DC0-11D1-B245-5FFDCE74FAD2", "s|1|nope",
             "s", "s|", "garbage"})
        EXPECT_EQ(list.decode(b64(raw)), std::nullopt) << raw;
    EXPECT_EQ(list.decode("!!!"), std::nullopt);
    EXPECT_EQ(list.decode(b64("s|9007199254740991|" + kId)), (Keys{"9007199254740991", kId}));
}

TEST(Paging, NaturalIntegerAndTextKeys) {
    List natural("n", {Key::natural});
    EXPECT_EQ(natural.decode(b64("n|0")), (Keys{"0"}));
    EXPECT_EQ(natural.decode(b64("n|-1")), std::nullopt);
    List signed_keys("i", {Key::integer, Key::text});
    EXPECT_EQ(signed_keys.decode(b64("i|-5|free-plan")), (Keys{"-5", "free-plan"}));
    EXPECT_EQ(signed_keys.decode(b64("i|-0|free")), std::nullopt);
    EXPECT_EQ(signed_keys.decode(b64("i|1|Free")), std::nullopt);
    EXPECT_EQ(signed_keys.decode(b64("i|1|" + std::string(65, 'a'))), std::nullopt);
}

TEST(Paging, ReadThrowsInvalidCursorAndIsEmptyWithoutOne) {
    List list("s", {Key::positive});
    http::Request req;
    req.query = {{"cursor", "bogus"}};
    http::QueryValues q =
        http::validate_query(req, {paging::cursor_param(), paging::limit_param()});
    try {
        list.read(q);
        FAIL() << "expected invalid_cursor";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 400);
        EXPECT_EQ(e.code, "invalid_cursor");
    }
    http::Request none;
    http::QueryValues q2 =
        http::validate_query(none, {paging::cursor_param(), paging::limit_param()});
    EXPECT_EQ(list.read(q2), std::nullopt);
    EXPECT_EQ(q2.integer("limit"), 100);
}

TEST(Paging, LimitIsOneToAThousand) {
    for (const char* bad : {"0", "1001", "-1", "x"}) {
        http::Request req;
        req.query = {{"limit", bad}};
        try {
            http::validate_query(req, {paging::cursor_param(), paging::limit_param()});
            FAIL() << bad;
        } catch (const pouch::Error& e) {
            EXPECT_EQ(e.code, "validation_failed");
            EXPECT_EQ(e.field, "?limit");
        }
    }
    http::Request req;
    req.query = {{"limit", "1000"}};
    EXPECT_EQ(http::validate_query(req, {paging::limit_param()}).integer("limit"), 1000);
}

// A required parameter that is absent is 400 "required" with its field, but only once every
// parameter that was given passed (the events route's ?epoch: its old order, kept).
TEST(Paging, RequiredParameterIsCheckedAfterTheGivenOnes) {
    const std::vector<http::QueryParam> params = {http::required(http::query_uuid("epoch")),
                                                  paging::limit_param()};
    auto refusal = [&](std::map<std::string, std::string> query) -> std::string {
        http::Request req;
        req.query = std::move(query);
        try {
            http::validate_query(req, params);
        } catch (const pouch::Error& e) {
            return std::string(e.code) + " " + e.field + " " + e.message;
        }
        return "accepted";
    };
    EXPECT_EQ(refusal({}), "validation_failed ?epoch required");
    EXPECT_EQ(refusal({{"limit", "0"}}),
              "validation_failed ?limit must be an integer from 1 to 1000");
    EXPECT_EQ(refusal({{"epoch", "0B5F1E4C-7D2A-4C1E-9F3B-2A6D8E0C4F71"}}), "accepted");
}

// A page of `rows` items of `size` bytes each.
http::Response page_of(const List& list, long long limit, int rows, size_t size) {
    return list.page(limit, rows, rows, [&](json::Out& o, int i) {
        o.str(std::string(size, 'x'));
        return Keys{std::to_string(i + 1)};
    });
}

TEST(Paging, PageStopsAtTheLimitAndNamesTheLastItemShown) {
    List list("s", {Key::positive});
    http::Response r = page_of(list, 2, 3, 1);  // limit + 1 rows fetched: more follow
    EXPECT_EQ(r.data, R"({"items":["x","x"]})");
    EXPECT_EQ(r.next_cursor, list.encode({"2"}));
    EXPECT_TRUE(r.list);
}

TEST(Paging, LastPageHasNoCursor) {
    List list("s", {Key::positive});
    EXPECT_EQ(page_of(list, 3, 3, 1).next_cursor, std::nullopt);
    EXPECT_EQ(page_of(list, 3, 0, 1).next_cursor, std::nullopt);
    EXPECT_EQ(page_of(list, 3, 0, 1).data, R"({"items":[]})");
}

TEST(Paging, PageStopsOnceItsJsonPassesTheBudget) {
    List list("s", {Key::positive});
    // 1.5 MiB items: the third passes 4 MiB, so the page holds three and continues after it.
    http::Response r = page_of(list, 100, 10, 1536 * 1024);
    EXPECT_EQ(r.next_cursor, list.encode({"3"}));
    EXPECT_GT(r.data.size(), paging::kPageBudget);
    EXPECT_LT(r.data.size(), paging::kPageBudget + 1536 * 1024);
    // One item larger than the budget still makes a page of one.
    http::Response big = page_of(list, 100, 2, 5 * 1024 * 1024);
    EXPECT_EQ(big.next_cursor, list.encode({"1"}));
}

}  // namespace
}  // namespace pouch
