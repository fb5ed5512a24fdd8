// plans.cpp -- GET /v1/admin/plans, GET /v1/admin/plans/{id} and PUT /v1/admin/plans/{id}
// (op 2, decisions §7): a partial update under the plan's row lock. Limits take effect at
// once for every account on the plan because quota checks join the plan on every request;
// lowering them never deletes data. An edit that changes something writes one audit record
// whose before/after hold only the changed fields; an edit that changes nothing writes none.
#include <climits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/http/error.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/model/plan.h"
#include "common/paging/paging.h"
#include "common/rules/plan_diff.h"
#include "handlers/admin/audit_record.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

// The stored plan's editable fields and the request's, as rules::plan_diff compares them.
rules::PlanValues current_values(const db::Result& cur) {
    rules::PlanValues v;
    for (const auto& f : rules::kPlanFields) {
        switch (f.kind) {
            case rules::PlanKind::text:
                v[f.name] = cur.text(0, f.name);
                break;
            case rules::PlanKind::integer:
                v[f.name] = cur.int64(0, f.name);
                break;
            case rules::PlanKind::boolean:
                v[f.name] = cur.boolean(0, f.name);
                break;
        }
    }
    return v;
}

rules::PlanValues asked_values(const rapidjson::Document& doc) {
    rules::PlanValues v;
    for (const auto& f : rules::kPlanFields) {
        if (!doc.HasMember(f.name)) continue;
        const rapidjson::Value& x = doc[f.name];
        switch (f.kind) {
            case rules::PlanKind::text:
                v[f.name] = json::text(x);
                break;
            case rules::PlanKind::integer:
                v[f.name] = static_cast<long long>(x.GetInt64());
                break;
            case rules::PlanKind::boolean:
                v[f.name] = x.GetBool();
                break;
        }
    }
    return v;
}

void write_value(json::Out& o, const std::string& key, const rules::PlanValue& v) {
    std::visit([&](const auto& x) { o.kv(key, x); }, v);
}

db::Param param_of(const rules::PlanValue& v) {
    if (const auto* t = std::get_if<std::string>(&v)) return *t;
    if (const auto* n = std::get_if<long long>(&v)) return std::to_string(*n);
    return std::string(std::get<bool>(v) ? "true" : "false");
}

// The Plan object as the whole of `data`. json::Out's root is always an object and
// write_plan() writes a member value, so the plan is written under one key and that key's
// value is cut out (the writer emits no whitespace, so the prefix is exact).
http::Response plan_response(const db::Result& r) {
    static constexpr std::string_view kPrefix = "{\"plan\":";
    json::Out o;
    o.key("plan");
    model::write_plan(o, r, 0);
    std::string wrapped = o.done();
    return api::ok(wrapped.substr(kPrefix.size(), wrapped.size() - kPrefix.size() - 1));
}

}  // namespace

http::Response list_plans(api::Call& call) {
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("plans", {paging::Key::integer, paging::Key::text});
    auto after = list.read(q);
    auto conn = s.db.acquire();
    db::Result r = conn->exec(
        sql::kListPlans,
        {paging::after_key(after, 0), paging::after_key(after, 1), std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        model::write_plan(o, r, i);
        return paging::Keys{r.text(i, "sort"), r.text(i, "slug")};
    });
}

http::Response get_plan(api::Call& call) {
    http::Services& s = call.services;
    const std::string& id = call.param("id");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kGetPlan, {id});
    if (r.rows() == 0) throw http::not_found();
    return plan_response(r);
}

http::Response update_plan(api::Call& call) {
    http::Services& s = call.services;
    const std::string& id = call.param("id");
    const rapidjson::Document& doc = call.body;

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result cur = conn->exec(sql::kLockPlan, {id});
    if (cur.rows() == 0) throw http::not_found();

    std::vector<rules::PlanChange> changes =
        rules::plan_diff(current_values(cur), asked_values(doc));
    if (changes.empty()) return plan_response(cur);  // nothing to write, nothing to audit

    // $1 the id, then one parameter per field: its new value if it changes, else NULL (kept).
    std::vector<db::Param> params{id};
    json::Out before, after;
    for (const auto& f : rules::kPlanFields) {
        db::Param p;
        for (const auto& ch : changes) {
            if (ch.field != f.name) continue;
            write_value(before, ch.field, ch.before);
            write_value(after, ch.field, ch.after);
            p = param_of(ch.after);
        }
        params.push_back(std::move(p));
    }

    db::Result r = [&] {
        try {
            return conn->exec(sql::kUpdatePlan, params);
        } catch (const Error& e) {
            if (e.sqlstate == "23505") throw Error(Code::slug_taken, {}, "/slug");
            throw;
        }
    }();
    write_audit(*conn, call, "plan.update", id, before.done(), after.done());
    tx.commit();
    return plan_response(r);
}

}  // namespace pouch::admin
