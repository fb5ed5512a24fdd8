// plans.cpp -- GET /v1/admin/plans, GET /v1/admin/plans/{id} and PUT /v1/admin/plans/{id}
// (op 2, decisions §7): a partial update under the plan's row lock. Limits take effect at
// once for every account on the plan because quota checks join the plan on every request;
// lowering them never deletes data. An edit that changes something writes one audit record
// whose before/after hold only the changed fields; an edit that changes nothing writes none.
#include <climits>
#include <string>
#include <string_view>
#include <vector>

#include "common/http/error.h"
#include "common/http/paging.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "common/model/plan.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

namespace js = json::schema;



enum class Kind { text, integer, boolean };
struct Field {
    const char* name;
    Kind kind;
};
// The editable fields, in the parameter order of sql::kUpdatePlan ($2..$12).
const Field kPlanFields[] = {
    {"slug", Kind::text},           {"name", Kind::text},
    {"description", Kind::text},    {"price_cents", Kind::integer},
    {"currency", Kind::text},       {"interval", Kind::text},
    {"pouch_limit", Kind::integer}, {"storage_bytes", Kind::integer},
    {"is_public", Kind::boolean},   {"is_active", Kind::boolean},
    {"sort", Kind::integer},
};

// The Plan object as the whole of `data`. json::Out's root is always an object and
// write_plan() writes a member value, so the plan is written under one key and that key's
// value is cut out (the writer emits no whitespace, so the prefix is exact).
Response plan_response(const db::Result& r) {
    static constexpr std::string_view kPrefix = "{\"plan\":";
    json::Out o;
    o.key("plan");
    model::write_plan(o, r, 0);
    std::string wrapped = o.done();
    Response resp;
    resp.data = wrapped.substr(kPrefix.size(), wrapped.size() - kPrefix.size() - 1);
    return resp;
}

}  // namespace

Response list_plans(api::Call& call) {
    Services& s = call.services;
    const QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("plans", {paging::Key::integer, paging::Key::text});
    auto after = list.read(q);
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kListPlans, {after ? db::Param((*after)[0]) : db::Param(),
                                                after ? db::Param((*after)[1]) : db::Param(),
                                                std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        model::write_plan(o, r, i);
        return paging::Keys{r.text(i, "sort"), r.text(i, "slug")};
    });
}

Response get_plan(api::Call& call) {
    Services& s = call.services;
    const std::string& id = call.param("id");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kGetPlan, {id});
    if (r.rows() == 0) throw not_found();
    return plan_response(r);
}

Response update_plan(api::Call& call) {
    Request& req = call.req;
    Services& s = call.services;
    const auth::Caller& c = call.who();
    const std::string& id = call.param("id");
    const rapidjson::Document& doc = call.body;

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result cur = conn->exec(sql::kLockPlan, {id});
    if (cur.rows() == 0) throw not_found();

    std::vector<db::Param> params{id};
    json::Out before, after;
    bool changed = false;
    for (const Field& f : kPlanFields) {
        db::Param p;
        if (doc.HasMember(f.name)) {
            const rapidjson::Value& v = doc[f.name];
            switch (f.kind) {
                case Kind::text: {
                    std::string now(v.GetString(), v.GetStringLength());
                    std::string was = cur.text(0, f.name);
                    if (now != was) {
                        before.kv(f.name, was);
                        after.kv(f.name, now);
                        p = now;
                    }
                    break;
                }
                case Kind::integer: {
                    long long now = v.GetInt64();
                    long long was = cur.int64(0, f.name);
                    if (now != was) {
                        before.kv(f.name, was);
                        after.kv(f.name, now);
                        p = std::to_string(now);
                    }
                    break;
                }
                case Kind::boolean: {
                    bool now = v.GetBool();
                    bool was = cur.boolean(0, f.name);
                    if (now != was) {
                        before.kv(f.name, was);
                        after.kv(f.name, now);
                        p = now ? "true" : "false";
                    }
                    break;
                }
            }
        }
        changed = changed || p.has_value();
        params.push_back(std::move(p));
    }
    if (!changed) return plan_response(cur);  // nothing to write, nothing to audit

    db::Result r = [&] {
        try {
            return conn->exec(sql::kUpdatePlan, params);
        } catch (const db::Error& e) {
            if (e.sqlstate == "23505")
                throw ApiError(409, "slug_taken", "another plan has this slug", "/slug");
            throw;
        }
    }();
    db::Param reason;
    if (doc.HasMember("reason"))
        reason = std::string(doc["reason"].GetString(), doc["reason"].GetStringLength());
    db::Param request_id;
    if (!req.request_id.empty()) request_id = req.request_id;
    conn->exec(sql::kInsertAudit, {c.user_id, std::string("plan.update"), id, before.done(),
                                   after.done(), reason, request_id});
    tx.commit();
    return plan_response(r);
}

}  // namespace pouch::admin
