// roster.cpp -- GET /v1/account/roster?after=N&limit=M (web and CLI): the account's signed
// statements in index order. `after` is the last index seen (default: from the start);
// meta.next_cursor is the index to pass as `after` when more may follow.
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

Response roster(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    QueryValues q = validate_query(
        req, {query_int("after", -1, 2147483647, -1), query_int("limit", 1, 1000, 100)});
    long long after = q.integer("after");
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kRosterPage,
                              {c.account_id, std::to_string(after), std::to_string(limit)});
    json::Out o;
    o.key("items").arr();
    for (int i = 0; i < r.rows(); ++i) {
        o.obj();
        o.kv("index", r.int64(i, "idx")).kv("statement", r.text(i, "statement"));
        o.kv("signature", r.text(i, "signature")).kv("created_at", r.text(i, "created_at"));
        o.end_obj();
    }
    o.end_arr();
    Response resp;
    resp.data = o.done();
    resp.list = true;
    if (r.rows() == limit) resp.next_cursor = r.text(r.rows() - 1, "idx");
    return resp;
}

}  // namespace pouch::account
