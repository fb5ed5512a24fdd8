// routes.h -- the shares group (decisions §8): create (op 13), list and revoke for the owner,
// the public fetch, and import by any signed-in web user. One file per endpoint.
#pragma once

#include "common/http/server.h"

namespace pouch::shares {

Response create(Request& req, Services& s);        // POST /v1/pouches/{pouchId}/shares (op 13)
Response list(Request& req, Services& s);          // GET  /v1/pouches/{pouchId}/shares
Response fetch(Request& req, Services& s);         // GET  /v1/shares/{id} (public)
Response import_share(Request& req, Services& s);  // POST /v1/shares/{id}/import
Response revoke(Request& req, Services& s);        // POST /v1/shares/{id}/revoke


}  // namespace pouch::shares
