// quota_rules_test.cpp -- the storage arithmetic of common/rules/quota.h, row by row: only
// growth is refused, at the limit passes, one byte past fails, and a blob check counts only
// what it adds.
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "common/rules/quota.h"

namespace {

using pouch::rules::BlobAsk;
using pouch::rules::check_growth;
using pouch::rules::check_request;
using pouch::rules::QuotaExcess;
using pouch::rules::reservation_growth;
using pouch::rules::Usage;

struct GrowthRow {
    const char* name;
    Usage before, after;
    std::optional<QuotaExcess> expected;
};

TEST(QuotaRules, GrowthOfAWriteAlreadyMade) {
    const GrowthRow rows[] = {
        {"grows to exactly the limit", {100, 60, 0}, {100, 100, 0}, std::nullopt},
        {"grows one byte past the limit", {100, 60, 0}, {100, 101, 0}, QuotaExcess{100, 60, 41}},
        {"reservations count as used", {100, 50, 30}, {100, 71, 30}, QuotaExcess{100, 80, 21}},
        {"reservations up to the limit pass", {100, 50, 30}, {100, 70, 30}, std::nullopt},
        {"over the plan but shrinking passes", {100, 150, 0}, {100, 140, 0}, std::nullopt},
        {"over the plan, same size passes", {100, 150, 0}, {100, 150, 0}, std::nullopt},
        {"over the plan and growing fails", {100, 150, 0}, {100, 151, 0}, QuotaExcess{100, 150, 1}},
        {"lowered plan, no growth passes", {200, 150, 0}, {100, 150, 0}, std::nullopt},
        {"zero plan refuses any growth", {0, 0, 0}, {0, 1, 0}, QuotaExcess{0, 0, 1}},
    };
    for (const auto& r : rows) {
        auto got = check_growth(r.before, r.after);
        ASSERT_EQ(got.has_value(), r.expected.has_value()) << r.name;
        if (!got) continue;
        EXPECT_EQ(got->limit_bytes, r.expected->limit_bytes) << r.name;
        EXPECT_EQ(got->used_bytes, r.expected->used_bytes) << r.name;
        EXPECT_EQ(got->requested_bytes, r.expected->requested_bytes) << r.name;
    }
}

struct RequestRow {
    const char* name;
    Usage now;
    long long requested;
    std::optional<QuotaExcess> expected;
};

TEST(QuotaRules, RequestBeforeItIsWritten) {
    const RequestRow rows[] = {
        {"fits exactly", {100, 40, 20}, 40, std::nullopt},
        {"one byte past", {100, 40, 20}, 41, QuotaExcess{100, 60, 41}},
        {"nothing requested over the plan", {100, 150, 0}, 0, std::nullopt},
        {"anything requested over the plan", {100, 150, 0}, 1, QuotaExcess{100, 150, 1}},
        {"empty account, whole plan", {1000, 0, 0}, 1000, std::nullopt},
    };
    for (const auto& r : rows) {
        auto got = check_request(r.now, r.requested);
        ASSERT_EQ(got.has_value(), r.expected.has_value()) << r.name;
        if (!got) continue;
        EXPECT_EQ(got->limit_bytes, r.expected->limit_bytes) << r.name;
        EXPECT_EQ(got->used_bytes, r.expected->used_bytes) << r.name;
        EXPECT_EQ(got->requested_bytes, r.expected->requested_bytes) << r.name;
    }
}

TEST(QuotaRules, ABlobCheckAddsOnlyWhatIsNotAlreadyHeld) {
    struct Row {
        const char* name;
        std::vector<BlobAsk> asks;
        long long expected;
    };
    const Row rows[] = {
        {"nothing asked", {}, 0},
        {"new blobs add their sizes", {{10, false, 0}, {5, false, 0}}, 15},
        {"an uploaded blob adds nothing", {{10, true, 0}}, 0},
        {"a re-check of the same size adds nothing", {{10, false, 10}}, 0},
        {"a larger re-check adds the growth", {{12, false, 10}}, 2},
        {"a smaller re-check gives nothing back", {{8, false, 10}}, 0},
        {"mixed", {{10, true, 0}, {12, false, 10}, {7, false, 0}, {3, false, 9}}, 9},
    };
    for (const auto& r : rows) EXPECT_EQ(reservation_growth(r.asks), r.expected) << r.name;
}

}  // namespace
