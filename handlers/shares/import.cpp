// import.cpp -- POST /v1/shares/{id}/import (decisions §8), any signed-in web user (the
// importer, not necessarily the owner): counts an import and sets last_imported_at, in one
// conditional UPDATE so concurrent imports are all counted. Importable: an active share, and
// a one_time share once (its import follows the fetch that consumed it). Revoked, expired or
// already-imported one_time: 410 share_unavailable; unknown: 404.
#include "common/auth/caller.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sql.h"

namespace pouch::shares {

Imported import_share(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    std::string id = req.param("id");
    auto conn = s.db.acquire();
    std::optional<Imported> r = conn->maybe_one(sql::kImportShare, {.id = id});
    if (!r) {
        auto e = conn->maybe_one(sql::kShareExists, {.id = id});
        if (!e) throw http::not_found();
        // Still active: a one_time share whose one import is spent, consumed for importing.
        throw unavailable_share(e->state == "active" ? "consumed" : e->state);
    }
    // Only the counters (Imported): the importer may be another account.
    return std::move(*r);
}

}  // namespace pouch::shares
