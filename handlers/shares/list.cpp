// list.cpp -- GET /v1/pouches/{pouchId}/shares?cursor=&limit= (decisions §8, §13), web or CLI
// of the pouch's account: its shares newest first with their computed state, paged by
// common/paging/paging.h on (created_at µs, id).
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/paging/paging.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/share_json.h"
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
    db::Result r =
        conn->exec(sql::kListShares, {pouch_id, paging::after_key(after, 0),
                                      paging::after_key(after, 1), std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        o.obj();
        write_share(o, r, i);
        o.end_obj();
        return paging::Keys{r.text(i, "created_us"), r.text(i, "id")};
    });
}

}  // namespace pouch::shares
