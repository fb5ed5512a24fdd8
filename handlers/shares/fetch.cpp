// fetch.cpp -- GET /v1/shares/{id} (decisions §8), public: answers the sealed bundle of an
// active share and counts the view; a one_time share is consumed by this fetch. Both happen
// in one conditional UPDATE (sql::kFetchShare), so two racing fetches of a one_time share get
// exactly one 200 and one 410. Not active: 410 share_unavailable; unknown: 404.
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

http::Response fetch(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    std::string id = req.param("id");
    auto conn = s.db.acquire();
    std::optional<FetchedShare> r = conn->maybe_one(sql::kFetchShare, {.id = id});
    if (!r) {
        auto e = conn->maybe_one(sql::kShareExists, {.id = id});
        if (!e) throw http::not_found();
        throw unavailable_share(e->state);
    }
    http::Response resp = api::ok(json::to_json(*r));
    // A one_time bundle is answered once; no shared cache may keep a copy to answer again.
    resp.headers.emplace_back("Cache-Control", "no-store");
    return resp;
}

}  // namespace pouch::shares
