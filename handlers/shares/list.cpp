// list.cpp -- GET /v1/pouches/{pouchId}/shares?cursor=&limit= (decisions §8, §13), web or CLI
// of the pouch's account: its shares newest first with their computed state, paged by
// common/paging/paging.h on (created_at µs, id).
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/paging/paging.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

http::Response list(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const std::string& pouch_id = req.param("pouchId");
    const paging::List list("shares/" + pouch_id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(q);
    auto conn = s.db.acquire();
    std::vector<ShareRow> rows =
        conn->rows(sql::kListShares, {.pouch_id = pouch_id,
                                      .after_us = paging::after_number(after, 0),
                                      .after_id = paging::after_key(after, 1),
                                      .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const ShareRow& r = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const Share&>(r));
        o.end_obj();
        return paging::Keys{std::to_string(r.created_us), r.id};
    });
}

}  // namespace pouch::shares
