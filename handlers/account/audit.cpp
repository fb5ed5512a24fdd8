// audit.cpp -- GET /v1/account/audit?cursor=&limit= (docs/SHARING.md §8), web only: the
// entries of the caller's account's audit log (sharing changes of the pouches it owns), newest
// first, keyset-paged on the log's id like /v1/admin/audit.
#include <climits>

#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/paging/paging.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

http::Response account_audit(api::Call& call) {
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("account-audit/" + c.account_id, {paging::Key::positive});
    auto from = list.read(q);
    long long before_id = paging::after_number(from, 0).value_or(LLONG_MAX);
    auto conn = call.services.db.acquire();
    std::vector<AccountAuditEntry> rows =
        conn->rows(sql::kAccountAuditPage,
                   {.account_id = c.account_id, .before_id = before_id, .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const AccountAuditEntry& e = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, e);
        o.end_obj();
        return paging::Keys{std::to_string(e.id)};
    });
}

}  // namespace pouch::account
