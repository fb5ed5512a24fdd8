// audit.cpp -- GET /v1/admin/audit?cursor=&limit= (decisions §7): the audit log newest
// first, keyset-paged on its id. The cursor is opaque to clients: b64url of "audit|<id>",
// the last id of the previous page; anything else is 400 invalid_cursor. A record written
// by `pouchctl` (no acting user) shows actor "operator".
#include <string>

#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

constexpr char kCursorScope[] = "audit|";
constexpr size_t kMaxCursorChars = 512;
// Before every id: the first page starts here (audit ids are a bigserial).
constexpr char kStartId[] = "9223372036854775807";

ApiError invalid_cursor() {
    return ApiError(400, "invalid_cursor", "the cursor is malformed or belongs to another list");
}

// The id inside a cursor: canonical decimal as encode writes it (no sign, no leading zero,
// at most 18 digits so it always fits a bigint).
std::string decode_cursor(const std::string& text) {
    auto raw = crypto::b64url_decode(text);
    const std::string scope = kCursorScope;
    if (!raw || raw->compare(0, scope.size(), scope) != 0) throw invalid_cursor();
    std::string id = raw->substr(scope.size());
    if (id.empty() || id.size() > 18 || id[0] == '0' ||
        id.find_first_not_of("0123456789") != std::string::npos)
        throw invalid_cursor();
    return id;
}

}  // namespace

Response list_audit(Request& req, Services& s) {
    require_admin(req, s);
    QueryValues q = validate_query(
        req, {query_text("cursor", kMaxCursorChars), query_int("limit", 1, 500, 100)});
    long long limit = q.integer("limit");
    auto cursor = q.text("cursor");
    std::string after = cursor ? decode_cursor(*cursor) : kStartId;

    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kAuditPage, {after, std::to_string(limit + 1)});
    json::Out o;
    o.key("items").arr();
    int shown = r.rows() > limit ? static_cast<int>(limit) : r.rows();
    for (int i = 0; i < shown; ++i) {
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
    }
    o.end_arr();
    Response resp;
    resp.data = o.done();
    resp.list = true;
    if (r.rows() > limit)
        resp.next_cursor = crypto::b64url_encode(kCursorScope + r.text(shown - 1, "id"));
    return resp;
}

}  // namespace pouch::admin
