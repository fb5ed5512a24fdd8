// admin_plan_edit_test.cpp -- the admin plan edit's described struct (handlers/admin/types.h)
// against the rule it feeds: PlanEdit's fields are rules::kPlanFields, by name, order and kind
// (the diff's order, the UPDATE's $2..$12 and the audit record's member order), each is a
// member of model::Plan of the same kind, and a PlanEdit is written with only its set fields.
#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "common/model/plan.h"
#include "common/rules/plan_diff.h"
#include "handlers/admin/types.h"

namespace pouch::admin {
namespace {

template <class T>
rules::PlanKind kind_of() {
    if constexpr (std::is_same_v<T, std::string>)
        return rules::PlanKind::text;
    else if constexpr (std::is_same_v<T, bool>)
        return rules::PlanKind::boolean;
    else
        return rules::PlanKind::integer;
}

struct Named {
    std::string name;
    rules::PlanKind kind;
    bool operator==(const Named&) const = default;
};

template <class S, bool Optional>
std::vector<Named> named_fields() {
    std::vector<Named> out;
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    using T = std::remove_cvref_t<decltype(std::declval<S>().*(f.member))>;
                    if constexpr (Optional) {
                        if constexpr (json::is_optional<T>::value)
                            out.push_back({f.name, kind_of<typename T::value_type>()});
                    } else if constexpr (!json::is_optional<T>::value) {
                        out.push_back({f.name, kind_of<T>()});
                    }
                }(),
                ...);
        },
        S::json_fields());
    return out;
}

TEST(AdminPlanEdit, ItsFieldsAreThePlanFieldsInOrder) {
    std::vector<Named> rule;
    for (const auto& f : rules::kPlanFields) rule.push_back({f.name, f.kind});
    EXPECT_EQ((named_fields<PlanEdit, true>()), rule);
}

TEST(AdminPlanEdit, EachEditableFieldIsAPlanMemberOfTheSameKind) {
    std::vector<Named> plan = named_fields<model::Plan, false>();  // its required members
    for (const auto& f : rules::kPlanFields) {
        Named want{f.name, f.kind};
        EXPECT_NE(std::find(plan.begin(), plan.end(), want), plan.end()) << f.name;
    }
}

TEST(AdminPlanEdit, AnEditIsWrittenWithOnlyItsSetFieldsInOrder) {
    PlanEdit e;
    EXPECT_EQ(json::to_json(e), "{}");
    e.sort = -3;
    e.slug = "pro";
    e.is_public = false;
    EXPECT_EQ(json::to_json(e), R"({"slug":"pro","is_public":false,"sort":-3})");
}

TEST(AdminPlanEdit, TheRequestAddsOnlyTheReason) {
    constexpr size_t edit = std::tuple_size_v<decltype(PlanEdit::json_fields())>;
    EXPECT_EQ(std::tuple_size_v<decltype(PlanEditRequest::json_fields())>, edit + 1);
    EXPECT_STREQ(std::get<edit>(PlanEditRequest::json_fields()).name, "reason");
}

}  // namespace
}  // namespace pouch::admin
