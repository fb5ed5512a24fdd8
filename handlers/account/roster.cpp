// roster.cpp -- GET /v1/account/roster?after=N&limit=M (web and CLI): the account's signed
// statements in index order. `after` is the last index seen (default: from the start);
// meta.next_cursor is the index to pass as `after` when more may follow.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

namespace {

long long int_param(const Request& req, const char* name, long long fallback, long long lo,
                    long long hi) {
    const std::string* v = req.query_param(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno != 0 || n < lo || n > hi ||
        (v->size() > 1 && (*v)[0] == '0'))
        throw validation_failed(std::string("?") + name,
                                "must be an integer from " + std::to_string(lo) + " to " +
                                    std::to_string(hi));
    return n;
}

}  // namespace

Response roster(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    for (const auto& [k, v] : req.query)
        if (k != "after" && k != "limit") throw validation_failed("?" + k, "unknown parameter");
    long long after = int_param(req, "after", -1, -1, 2147483647);
    long long limit = int_param(req, "limit", 100, 1, 1000);
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
