// import.cpp -- POST /v1/shares/{id}/import (decisions §8), any signed-in web user (the
// importer, not necessarily the owner): counts an import and sets last_imported_at, in one
// conditional UPDATE so concurrent imports are all counted. Importable: an active share, and
// a one_time share once (its import follows the fetch that consumed it). Revoked, expired or
// already-imported one_time: 410 share_unavailable; unknown: 404.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

http::Response import_share(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    std::string id = req.param("id");
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kImportShare, {id});
    if (r.rows() == 0) {
        db::Result e = conn->exec(sql::kShareExists, {id});
        if (e.rows() == 0) throw http::not_found();
        // Still active: a one_time share whose one import is spent, consumed for importing.
        std::string state = e.text(0, "state");
        throw unavailable_share(state == "active" ? "consumed" : state);
    }
    // Only the counters: the importer may be another account, which learns nothing of the
    // owner's pouch or the share's other metadata.
    json::Out o;
    o.kv("id", r.text(0, "id")).kv("imports", r.int64(0, "imports"));
    o.kv("last_imported_at", r.text(0, "last_imported_at"));
    return api::ok(o.done());
}

}  // namespace pouch::shares
