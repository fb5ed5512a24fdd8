// routes.h -- the shares group (decisions §8): create (op 13), list and revoke for the owner,
// the public fetch, and import by any signed-in web user. One file per endpoint.
#pragma once

#include <string>

#include "common/http/error.h"
#include "common/http/server.h"

namespace pouch::shares {

Response create(Request& req, Services& s);        // POST /v1/pouches/{pouchId}/shares (op 13)
Response list(Request& req, Services& s);          // GET  /v1/pouches/{pouchId}/shares
Response fetch(Request& req, Services& s);         // GET  /v1/shares/{id} (public)
Response import_share(Request& req, Services& s);  // POST /v1/shares/{id}/import
Response revoke(Request& req, Services& s);        // POST /v1/shares/{id}/revoke

// 410 share_unavailable for a share that exists but is not active; details.state says which
// of expired, revoked or consumed it is, so a page can tell its visitor the reason.
inline ApiError unavailable_share(const std::string& state) {
    return ApiError(410, "share_unavailable", "the share is " + state)
        .with_details("{\"state\":\"" + state + "\"}");
}

}  // namespace pouch::shares
