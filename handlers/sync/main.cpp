// main.cpp -- the sync handler: pouches, key envelopes, commits, events (long-polls woken
// through Redis), artifacts, revisions and blobs.
#include "common/http/server.h"
#include "handlers/sync/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    RouteOptions commit_body;  // decisions §3
    commit_body.body_limit = 8 * kMiB;
    RouteOptions envelopes_body;
    envelopes_body.body_limit = 16 * kMiB;
    RouteOptions check_body;  // 1000 items of up to ~76 bytes each exceed the 64 KiB default
    check_body.body_limit = 128 * kKiB;
    RouteOptions blob_body;
    blob_body.body = BodyKind::stream;
    blob_body.body_limit = 64 * kMiB;
    blob_body.content_type = "application/octet-stream";
    const std::string pouch = "/v1/pouches/{pouchId:uuid}";
    return handler_main(
        "sync", argc, argv,
        [&](Router& r) {
            r.add_query("GET", "/v1/pouches", sync::list_pouches);
            r.add("POST", "/v1/pouches", sync::create_pouch, envelopes_body);
            r.add("GET", pouch, sync::get_pouch);
            r.add_query("GET", pouch + "/key-envelopes", sync::list_key_envelopes);
            r.add("POST", pouch + "/key-envelopes", sync::add_key_envelopes, envelopes_body);
            r.add("POST", pouch + "/operations", sync::commit, commit_body);
            r.add_query("GET", pouch + "/events", sync::events);
            r.add_query("GET", pouch + "/artifacts", sync::list_artifacts);
            r.add_query("GET", pouch + "/artifacts/{artifactId:uuid}/revisions",
                        sync::list_revisions);
            r.add("POST", pouch + "/blobs/check", sync::check_blobs, check_body);
            r.add("PUT", pouch + "/blobs/{blobId:blobid}", sync::upload_blob, blob_body);
            r.add("GET", pouch + "/blobs/{blobId:blobid}", sync::download_blob);
        },
        HandlerOptions{.long_poll = true});
}
