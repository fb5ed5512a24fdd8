// plan_diff_rules_test.cpp -- rules::plan_diff row by row: only named fields that differ are
// changes, in the fixed field order, with their before and after values.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/rules/plan_diff.h"

namespace {

using pouch::rules::plan_diff;
using pouch::rules::PlanChange;
using pouch::rules::PlanValue;
using pouch::rules::PlanValues;

PlanValues stored() {
    return {{"slug", std::string("free")},       {"name", std::string("Free")},
            {"description", std::string("")},    {"price_cents", 0LL},
            {"currency", std::string("EUR")},    {"interval", std::string("month")},
            {"pouch_limit", 3LL},                {"storage_bytes", 1000LL},
            {"is_public", true},                 {"is_active", true},
            {"sort", 10LL}};
}

std::vector<std::string> fields(const std::vector<PlanChange>& cs) {
    std::vector<std::string> out;
    for (const auto& c : cs) out.push_back(c.field);
    return out;
}

TEST(PlanDiff, Rows) {
    struct Row {
        const char* name;
        PlanValues asked;
        std::vector<std::string> changed;
    };
    const Row rows[] = {
        {"empty edit", {}, {}},
        {"same values", {{"name", std::string("Free")}, {"storage_bytes", 1000LL}}, {}},
        {"one text", {{"name", std::string("Gratis")}}, {"name"}},
        {"integer by value", {{"storage_bytes", 999LL}}, {"storage_bytes"}},
        {"boolean", {{"is_public", false}, {"is_active", true}}, {"is_public"}},
        {"text is case-sensitive", {{"currency", std::string("eur")}}, {"currency"}},
        {"empty string vs text", {{"description", std::string("x")}}, {"description"}},
        {"order is the field order, not the request's",
         {{"sort", 1LL}, {"slug", std::string("f")}, {"pouch_limit", 4LL}},
         {"slug", "pouch_limit", "sort"}},
        {"unknown names are ignored", {{"owner", std::string("x")}}, {}},
    };
    for (const auto& r : rows) EXPECT_EQ(fields(plan_diff(stored(), r.asked)), r.changed) << r.name;
}

TEST(PlanDiff, ChangesCarryBeforeAndAfter) {
    auto cs = plan_diff(stored(), {{"storage_bytes", 5000LL}, {"is_active", false}});
    ASSERT_EQ(cs.size(), 2u);
    EXPECT_EQ(cs[0].field, "storage_bytes");
    EXPECT_EQ(cs[0].before, PlanValue(1000LL));
    EXPECT_EQ(cs[0].after, PlanValue(5000LL));
    EXPECT_EQ(cs[1].field, "is_active");
    EXPECT_EQ(cs[1].before, PlanValue(true));
    EXPECT_EQ(cs[1].after, PlanValue(false));
}

}  // namespace
