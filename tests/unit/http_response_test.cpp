// http_response_test.cpp -- the envelope (decisions §2) rendered in its one place.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/db/pool.h"
#include "common/http/error.h"
#include "common/http/response.h"

namespace pouch {
namespace {

std::string header(const http::Rendered& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
        if (k == name) return v;
    return "<absent>";
}

TEST(Envelope, SuccessCarriesDataAndRequestId) {
    http::Response resp;
    resp.status = 201;
    resp.data = R"({"user_id":"u1"})";
    http::Rendered r = http::render_success(resp, "req-1");
    EXPECT_EQ(r.status, 201);
    EXPECT_EQ(r.body, R"({"ok":true,"data":{"user_id":"u1"},"meta":{"request_id":"req-1"}})");
    EXPECT_EQ(header(r, "X-Request-Id"), "req-1");
    EXPECT_EQ(header(r, "Content-Type"), "application/json");
    EXPECT_EQ(header(r, "Cache-Control"), "no-store");
}

TEST(Envelope, ListAlwaysHasNextCursor) {
    http::Response resp;
    resp.list = true;
    resp.data = R"({"items":[]})";
    EXPECT_EQ(http::render_success(resp, "r").body,
              R"({"ok":true,"data":{"items":[]},"meta":{"request_id":"r","next_cursor":null}})");
    resp.next_cursor = "abc";
    EXPECT_EQ(http::render_success(resp, "r").body,
              R"({"ok":true,"data":{"items":[]},"meta":{"request_id":"r","next_cursor":"abc"}})");
}

TEST(Envelope, ValidationErrorHasField) {
    http::Rendered r =
        http::render_error(validation_failed("/ops/3/artifact_id", "must be a uuid"), "r2");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.body,
              R"({"ok":false,"error":{"code":"validation_failed","message":"must be a uuid",)"
              R"("field":"/ops/3/artifact_id"},"meta":{"request_id":"r2"}})");
}

TEST(Envelope, ErrorDetailsAndHeadersPassThrough) {
    Error e = Error(Code::epoch_mismatch, "epoch changed")
                  .with_details(R"({"current_epoch":"e","high_water":7})");
    http::Rendered r = http::render_error(e, "r3");
    EXPECT_EQ(r.body,
              R"({"ok":false,"error":{"code":"epoch_mismatch","message":"epoch changed",)"
              R"("details":{"current_epoch":"e","high_water":7}},"meta":{"request_id":"r3"}})");
    http::Rendered u = http::render_error(unavailable(), "r4");
    EXPECT_EQ(u.status, 503);
    EXPECT_EQ(header(u, "Retry-After"), "1");
}

TEST(Envelope, MessagesAreEscaped) {
    http::Rendered r = http::render_error(Error(Code::invalid_json, "bad \"quote\"\n"), "r");
    EXPECT_NE(r.body.find(R"("message":"bad \"quote\"\n")"), std::string::npos);
}

TEST(Envelope, EveryCodeIsAnsweredWithItsCatalogueStatusAndDefaultMessage) {
    for (const CodeEntry& c : kCatalogue) {
        http::Rendered r = http::render_error(Error(c.id), "req-1");
        EXPECT_EQ(r.status, c.status) << c.code;
        EXPECT_NE(r.body.find("\"code\":\"" + std::string(c.code) + "\",\"message\":\"" +
                              std::string(c.message) + "\""),
                  std::string::npos)
            << r.body;
    }
}

// A failed statement is the one error type: 500 internal, or 503 unavailable with Retry-After
// when the connection broke; libpq's text goes to the log line, never into the answer.
TEST(Envelope, AFailedStatementIsAnsweredWithoutItsCause) {
    const std::string cause = R"(kInsertUser: ERROR:  duplicate key value violates "users_email")";
    for (bool lost : {false, true}) {
        std::string detail;
        http::Rendered r = http::render_guarded("r9", detail, [&]() -> http::Response {
            throw db::statement_failed(cause, lost ? "57P01" : "23505", lost);
        });
        EXPECT_EQ(r.status, lost ? 503 : 500);
        EXPECT_EQ(r.body, lost ? R"({"ok":false,"error":{"code":"unavailable","message":)"
                                 R"("a dependency is unavailable, retry shortly"},)"
                                 R"("meta":{"request_id":"r9"}})"
                               : R"({"ok":false,"error":{"code":"internal","message":)"
                                 R"("internal error"},"meta":{"request_id":"r9"}})");
        bool retry_after = false;
        for (const auto& [k, v] : r.headers) retry_after = retry_after || (k == "Retry-After");
        EXPECT_EQ(retry_after, lost);
        EXPECT_EQ(detail, "database: " + cause);
    }
    Error e = db::statement_failed(cause, "23505", false);
    EXPECT_EQ(e.sqlstate, "23505");
    EXPECT_FALSE(e.connection_lost);
    EXPECT_EQ(std::string(e.what()), cause);
}

TEST(Cgi, StatusLineHeadersAndLength) {
    http::Rendered r{404, {{"Content-Type", "application/json"}}, "{}"};
    EXPECT_EQ(http::to_cgi(r),
              "Status: 404 Not Found\r\nContent-Type: application/json\r\n"
              "Content-Length: 2\r\n\r\n{}");
}

}  // namespace
}  // namespace pouch
