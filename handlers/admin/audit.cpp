// audit.cpp -- GET /v1/admin/audit?cursor=&limit= (decisions §7, §13): the audit log newest
// first, keyset-paged by common/paging/paging.h on its id. A record written while a client pages
// appears on no page it has not yet read out of order: ids only grow.
#include <climits>

#include "common/http/query.h"
#include "common/paging/paging.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

http::Response list_audit(api::Call& call) {
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("audit", {paging::Key::positive});
    auto from = list.read(q);
    // Before every id (audit ids are a bigserial): the first page starts there.
    long long before_id = paging::after_number(from, 0).value_or(LLONG_MAX);

    auto conn = s.db.acquire();
    std::vector<AuditEntry> rows =
        conn->rows(sql::kAuditPage, {.before_id = before_id, .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const AuditEntry& e = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, e);
        o.end_obj();
        return paging::Keys{std::to_string(e.id)};
    });
}

}  // namespace pouch::admin
