// main.cpp -- the shares handler: sealed share links (decisions §8).
#include "common/api/main.h"
#include "handlers/shares/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("shares", argc, argv, [](http::Router& r, const config::Config&) {
        api::add(r, shares::kCreate, api::typed(shares::create));
        api::add(r, shares::kList, shares::list);
        api::add(r, shares::kFetch, shares::fetch);
        api::add(r, shares::kImport, api::typed(shares::import_share));
        api::add(r, shares::kRevoke, api::typed(shares::revoke));
    });
}
