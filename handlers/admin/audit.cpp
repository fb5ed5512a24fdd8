// audit.cpp -- GET /v1/admin/audit?cursor=&limit= (decisions §7, §13): the audit log newest
// first, keyset-paged by common/paging/paging.h on its id. A record written while a client pages
// appears on no page it has not yet read out of order: ids only grow.
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/paging/paging.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

// Before every id: the first page starts here (audit ids are a bigserial).
constexpr char kStartId[] = "9223372036854775807";

}  // namespace

http::Response list_audit(api::Call& call) {
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("audit", {paging::Key::positive});
    auto from = list.read(q);
    std::string after = from ? (*from)[0] : kStartId;

    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kAuditPage, {after, std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        o.obj();
        o.kv("id", r.int64(i, "id"));
        o.kv("actor", r.opt(i, "actor_user_id").value_or("operator"));
        o.kv("action", r.text(i, "action")).kv("target", r.text(i, "target"));
        auto before = r.opt(i, "before");
        auto after_v = r.opt(i, "after");
        o.key("before");
        before ? o.raw(*before) : o.null();
        o.key("after");
        after_v ? o.raw(*after_v) : o.null();
        o.kv("reason", r.opt(i, "reason")).kv("request_id", r.opt(i, "request_id"));
        o.kv("at", r.text(i, "at"));
        o.end_obj();
        return paging::Keys{r.text(i, "id")};
    });
}

}  // namespace pouch::admin
