// main.cpp -- the cliauth handler: CLI login requests, approval, token redemption (with
// long-polls woken through Redis), refresh and connect tokens.
#include "common/api/main.h"
#include "handlers/cliauth/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main(
        "cliauth", argc, argv,
        [](http::Router& r, const config::Config&) { api::add(r, cliauth::kRoutes); },
        api::HandlerOptions{.wakeups = wakeup::Topic::login});
}
