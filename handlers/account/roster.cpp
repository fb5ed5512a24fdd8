// roster.cpp -- GET /v1/account/roster (web and CLI): the account's signed statements in index
// order, paged by common/paging/paging.h (decisions §13). `after=N` (the last index seen; the
// original form of decisions §4) still works; `cursor` and `after` exclude each other.
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/paging/paging.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

http::Response roster(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    if (q.has("after") && q.text("cursor"))
        throw validation_failed("?after", "give cursor or after, not both");
    const paging::List list("roster/" + c.account_id, {paging::Key::natural});
    auto from = list.read(q);
    std::string after =
        from ? (*from)[0] : std::to_string(q.has("after") ? q.integer("after") : -1);
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kRosterPage, {c.account_id, after, std::to_string(limit + 1),
                                                 std::to_string(paging::kPageBudget)});
    return list.page(limit, r.rows(), paging::fetched(r), [&](json::Out& o, int i) {
        o.obj();
        o.kv("index", r.int64(i, "idx")).kv("statement", r.text(i, "statement"));
        o.kv("signature", r.text(i, "signature")).kv("created_at", r.text(i, "created_at"));
        o.end_obj();
        return paging::Keys{r.text(i, "idx")};
    });
}

}  // namespace pouch::account
