// roster.cpp -- GET /v1/account/roster (web and CLI): the account's signed statements in index
// order, paged by common/paging/paging.h (decisions §13). `after=N` (the last index seen; the
// original form of decisions §4) still works; `cursor` and `after` exclude each other.
#include "common/auth/caller.h"
#include "common/http/query.h"
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
    long long after = from ? *paging::after_number(from, 0)
                           : (q.has("after") ? q.integer("after") : -1);
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    std::vector<RosterRow> rows =
        conn->rows(sql::kRosterPage, {.account_id = c.account_id,
                                      .after = after,
                                      .limit = limit + 1,
                                      .budget = paging::kPageBudget});
    int n = static_cast<int>(rows.size());
    long long fetched = rows.empty() ? 0 : rows[0].fetched;
    return list.page(limit, n, fetched, [&](json::Out& o, int i) {
        const RosterRow& e = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const RosterEntry&>(e));
        o.end_obj();
        return paging::Keys{std::to_string(e.index)};
    });
}

}  // namespace pouch::account
