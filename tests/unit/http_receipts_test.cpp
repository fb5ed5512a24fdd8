// http_receipts_test.cpp -- the bounds on uploads in receipt (common/http/receipts.h): at the
// per-account bound the next of that account is 429 and another account still enters; at the
// total bound the next is 503; each with Retry-After; a ticket gives its place back when it
// goes, and on_enter runs once per entry.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/http/receipts.h"
#include "common/types/error.h"

using pouch::Code;
using pouch::Error;
using pouch::http::Receipts;

namespace {

// The error enter() throws, or nullopt when it entered (the ticket then goes at once).
std::optional<Error> refusal(Receipts& r, const std::string& account,
                             std::vector<std::shared_ptr<void>>* keep) {
    try {
        auto t = r.enter(account);
        if (keep) keep->push_back(std::move(t));
        return std::nullopt;
    } catch (const Error& e) {
        return e;
    }
}

std::string header(const Error& e, const std::string& name) {
    for (const auto& [n, v] : e.headers)
        if (n == name) return v;
    return "";
}

TEST(Receipts, AnAccountHoldsItsBoundAndTheNextIs429WhileAnotherStillEnters) {
    int entered = 0;
    Receipts r(3, 100, [&] { ++entered; });
    std::vector<std::shared_ptr<void>> held;
    for (int i = 0; i < 3; ++i) ASSERT_FALSE(refusal(r, "a", &held)) << i;
    auto e = refusal(r, "a", &held);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->id, Code::rate_limited);
    EXPECT_EQ(header(*e, "Retry-After"), "1");
    EXPECT_EQ(r.of("a"), 3);
    EXPECT_FALSE(refusal(r, "b", &held));
    EXPECT_EQ(r.in_receipt(), 4);
    EXPECT_EQ(entered, 4);  // not for the refused one
    held.erase(held.begin());  // one of a's is answered: a enters again
    EXPECT_EQ(r.of("a"), 2);
    EXPECT_FALSE(refusal(r, "a", &held));
    EXPECT_EQ(r.of("a"), 3);
}

TEST(Receipts, AtTheTotalBoundTheNextIs503AndAnAnsweredOneMakesRoom) {
    Receipts r(10, 4);
    std::vector<std::shared_ptr<void>> held;
    for (int i = 0; i < 4; ++i) ASSERT_FALSE(refusal(r, "acct" + std::to_string(i % 2), &held));
    auto e = refusal(r, "other", &held);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->id, Code::unavailable);
    EXPECT_EQ(header(*e, "Retry-After"), "1");
    EXPECT_EQ(r.in_receipt(), 4);
    EXPECT_EQ(r.of("other"), 0);
    held.pop_back();
    EXPECT_EQ(r.in_receipt(), 3);
    EXPECT_FALSE(refusal(r, "other", &held));
    held.clear();
    EXPECT_EQ(r.in_receipt(), 0);
    EXPECT_EQ(r.of("acct0"), 0);
}

TEST(Receipts, AThrowingOnEnterGivesThePlaceBack) {
    Receipts r(1, 1, [] { throw std::runtime_error("no thread"); });
    EXPECT_THROW(r.enter("a"), std::runtime_error);
    EXPECT_EQ(r.in_receipt(), 0);
    EXPECT_EQ(r.of("a"), 0);
}

}  // namespace
