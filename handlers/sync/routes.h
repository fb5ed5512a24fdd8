// routes.h -- the sync group (decisions §5): pouches, key envelopes, commits, events,
// artifacts, revisions and blobs. One file per endpoint family.
#pragma once

#include <string>

#include "common/http/server.h"

namespace pouch::sync {

// pouches.cpp
Response list_pouches(Request& req, Services& s);       // GET  /v1/pouches
Response get_pouch(Request& req, Services& s);          // GET  /v1/pouches/{pouchId}
Response create_pouch(Request& req, Services& s);       // POST /v1/pouches
// key_envelopes.cpp
Response list_key_envelopes(Request& req, Services& s); // GET  .../key-envelopes
Response add_key_envelopes(Request& req, Services& s);  // POST .../key-envelopes
// commit.cpp
Response commit(Request& req, Services& s);             // POST .../operations (op 1)
// events.cpp
Response events(Request& req, Services& s);             // GET  .../events
// artifacts.cpp
Response list_artifacts(Request& req, Services& s);     // GET  .../artifacts (op 7)
Response list_revisions(Request& req, Services& s);     // GET  .../artifacts/{id}/revisions (op 10)
// blobs.cpp
Response check_blobs(Request& req, Services& s);        // POST .../blobs/check (op 8)
Response upload_blob(Request& req, Services& s);        // PUT  .../blobs/{blobId}
Response download_blob(Request& req, Services& s);      // GET  .../blobs/{blobId}

}  // namespace pouch::sync
