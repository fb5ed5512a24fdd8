// plans.cpp -- GET /v1/admin/plans, GET /v1/admin/plans/{id} and PUT /v1/admin/plans/{id}
// (op 2, decisions §7): a partial update under the plan's row lock. Limits take effect at
// once for every account on the plan because quota checks join the plan on every request;
// lowering them never deletes data. An edit that changes something writes one audit record
// whose before/after hold only the changed fields; an edit that changes nothing writes none.
#include <string>
#include <type_traits>
#include <vector>

#include "common/http/error.h"
#include "common/http/query.h"
#include "common/model/plan.h"
#include "common/paging/paging.h"
#include "common/rules/plan_diff.h"
#include "handlers/admin/audit_record.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

// The stored plan's fields and the request's, by name, as rules::plan_diff compares them (it
// reads only the editable ones, rules::kPlanFields).
rules::PlanValues current_values(const model::Plan& plan) {
    rules::PlanValues v;
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    const auto& x = plan.*(f.member);
                    if constexpr (std::is_constructible_v<rules::PlanValue, decltype(x)> &&
                                  !json::is_optional<std::remove_cvref_t<decltype(x)>>::value)
                        v[f.name] = x;
                }(),
                ...);
        },
        model::Plan::json_fields());
    return v;
}

rules::PlanValues asked_values(const PlanEdit& edit) {
    rules::PlanValues v;
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    if (const auto& x = edit.*(f.member)) v[f.name] = *x;
                }(),
                ...);
        },
        PlanEdit::json_fields());
    return v;
}

// Sets the field named `name` of `edit` to `value` (of that field's kind: plan_diff hands back
// the values it was given).
void set_field(PlanEdit& edit, const std::string& name, const rules::PlanValue& value) {
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    if (name != f.name) return;
                    auto& x = edit.*(f.member);
                    x = std::get<typename std::remove_cvref_t<decltype(x)>::value_type>(value);
                }(),
                ...);
        },
        PlanEdit::json_fields());
}

}  // namespace

http::Response list_plans(api::Call& call) {
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("plans", {paging::Key::integer, paging::Key::text});
    auto after = list.read(q);
    auto conn = s.db.acquire();
    std::vector<model::Plan> rows =
        conn->rows(sql::kListPlans, {.after_sort = paging::after_number(after, 0),
                                     .after_slug = paging::after_key(after, 1),
                                     .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const model::Plan& p = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, p);
        o.end_obj();
        return paging::Keys{std::to_string(p.sort), p.slug};
    });
}

model::Plan get_plan(api::Call& call) {
    http::Services& s = call.services;
    const std::string& id = call.param("id");
    auto conn = s.db.acquire();
    auto plan = conn->maybe_one(sql::kGetPlan, {.id = id});
    if (!plan) throw http::not_found();
    return std::move(*plan);
}

model::Plan update_plan(api::Call& call, const PlanEditRequest& body) {
    http::Services& s = call.services;
    const std::string& id = call.param("id");

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    auto cur = conn->maybe_one(sql::kLockPlan, {.id = id});
    if (!cur) throw http::not_found();

    std::vector<rules::PlanChange> changes =
        rules::plan_diff(current_values(*cur), asked_values(body));
    if (changes.empty()) return std::move(*cur);  // nothing to write, nothing to audit

    // The changed fields only: the UPDATE keeps every other column (NULL), the audit record
    // holds them alone (PlanEdit omits an empty field).
    PlanEdit before, after;
    for (const auto& ch : changes) {
        set_field(before, ch.field, ch.before);
        set_field(after, ch.field, ch.after);
    }
    sql::UpdatePlanParams params{after, id};

    model::Plan r = [&] {
        try {
            return conn->one(sql::kUpdatePlan, params);
        } catch (const Error& e) {
            if (e.sqlstate == "23505") throw Error(Code::slug_taken, {}, "/slug");
            throw;
        }
    }();
    write_audit(*conn, call, "plan.update", id, before, after, body.reason);
    tx.commit();
    return r;
}

}  // namespace pouch::admin
