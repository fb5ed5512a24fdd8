// main.cpp -- the sync handler: pouches, key envelopes, commits, events (long-polls woken
// through Redis), artifacts, revisions and blobs.
#include "common/api/main.h"
#include "handlers/sync/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main(
        "sync", argc, argv,
        [](http::Router& r, const config::Config&) { api::add(r, sync::kRoutes); },
        api::HandlerOptions{.wakeups = wakeup::Topic::events});
}
