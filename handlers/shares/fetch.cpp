// fetch.cpp -- GET /v1/shares/{id} (decisions §8), public: answers the sealed bundle of an
// active share and counts the view; a one_time share is consumed by this fetch. Both happen
// in one conditional UPDATE (sql::kFetchShare), so two racing fetches of a one_time share get
// exactly one 200 and one 410. Not active: 410 share_unavailable; unknown: 404.
#include "common/json/out.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

http::Response fetch(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    std::string id = req.param("id");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kFetchShare, {id});
    if (r.rows() == 0) {
        db::Result e = conn->exec(sql::kShareExists, {id});
        if (e.rows() == 0) throw http::not_found();
        throw unavailable_share(e.text(0, "state"));
    }
    json::Out o;
    o.kv("id", r.text(0, "id")).kv("label_enc", r.text(0, "label_enc"));
    o.kv("bundle", r.text(0, "bundle")).kv("size", r.int64(0, "size"));
    o.kv("expires_at", r.opt(0, "expires_at")).kv("one_time", r.boolean(0, "one_time"));
    http::Response resp = api::ok(o.done());
    // A one_time bundle is answered once; no shared cache may keep a copy to answer again.
    resp.headers.emplace_back("Cache-Control", "no-store");
    return resp;
}

}  // namespace pouch::shares
