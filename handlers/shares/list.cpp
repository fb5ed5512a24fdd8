// list.cpp -- GET /v1/pouches/{pouchId}/shares?cursor=&limit= (decisions §8), web or CLI of
// the pouch's account: its shares as Share objects, newest first. limit 1..500 (default 100);
// paging by meta.next_cursor, an opaque "<created_at µs>.<id>" keyset position.
#include <cerrno>
#include <cstdlib>

#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/share_json.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

namespace {

struct Position {
    std::string created_us;
    std::string id;
};

// 400 invalid_cursor for anything this endpoint did not hand out.
Position parse_cursor(const std::string& cursor) {
    ApiError bad(400, "invalid_cursor", "cursor is not one this list returned", "?cursor");
    size_t dot = cursor.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 19) throw bad;
    std::string us = cursor.substr(0, dot);
    std::string id = cursor.substr(dot + 1);
    for (char ch : us)
        if (ch < '0' || ch > '9') throw bad;
    errno = 0;
    std::strtoll(us.c_str(), nullptr, 10);
    if (errno == ERANGE || !is_uuid(id)) throw bad;
    return {us, id};
}

}  // namespace

Response list(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    QueryValues q =
        validate_query(req, {query_text("cursor", 64), query_int("limit", 1, 500, 100)});
    long long limit = q.integer("limit");
    db::Param after_us, after_id;
    if (auto cursor = q.text("cursor")) {
        Position p = parse_cursor(*cursor);
        after_us = p.created_us;
        after_id = p.id;
    }
    std::string pouch_id = req.param("pouchId");
    auto conn = s.db.acquire();
    if (conn->exec(sql::kPouchOfAccount, {pouch_id, c.account_id}).rows() == 0) throw not_found();
    db::Result r =
        conn->exec(sql::kListShares, {pouch_id, after_us, after_id, std::to_string(limit + 1)});
    int shown = std::min<int>(r.rows(), static_cast<int>(limit));
    json::Out o;
    o.key("items").arr();
    for (int i = 0; i < shown; ++i) {
        o.obj();
        write_share(o, r, i);
        o.end_obj();
    }
    o.end_arr();
    Response resp;
    resp.data = o.done();
    resp.list = true;
    if (r.rows() > shown)
        resp.next_cursor = r.text(shown - 1, "created_us") + "." + r.text(shown - 1, "id");
    return resp;
}

}  // namespace pouch::shares
