// main.cpp -- the shares handler: sealed share links (decisions §8).
#include "common/api/main.h"
#include "handlers/shares/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("shares", argc, argv, [](http::Router& r, const config::Config&) {
        api::add(r, shares::kRoutes);
    });
}
