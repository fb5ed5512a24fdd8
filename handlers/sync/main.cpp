// main.cpp -- the sync handler: pouches, key envelopes, commits, events (long-polls woken
// through Redis), artifacts, revisions and blobs.
#include "common/api/main.h"
#include "handlers/sync/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main(
        "sync", argc, argv,
        [](http::Router& r, const config::Config&) {
            api::add(r, sync::kListPouches, sync::list_pouches);
            api::add(r, sync::kCreatePouch, api::typed(sync::create_pouch));
            api::add(r, sync::kGetPouch, api::typed(sync::get_pouch));
            api::add(r, sync::kListEnvelopes, sync::list_key_envelopes);
            api::add(r, sync::kAddEnvelopes, api::typed(sync::add_key_envelopes));
            api::add(r, sync::kCommit, api::typed(sync::commit));
            api::add(r, sync::kEvents, sync::events);
            api::add(r, sync::kArtifacts, sync::list_artifacts);
            api::add(r, sync::kRevisions, sync::list_revisions);
            api::add(r, sync::kCheckBlobs, api::typed(sync::check_blobs));
            api::add(r, sync::kUploadBlob, sync::upload_blob);
            api::add(r, sync::kDownloadBlob, sync::download_blob);
        },
        api::HandlerOptions{.wakeups = wakeup::Topic::events});
}
