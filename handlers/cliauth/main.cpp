// main.cpp -- the cliauth handler: CLI login requests, approval, token redemption (with
// long-polls woken through Redis), refresh and connect tokens.
#include "common/api/main.h"
#include "handlers/cliauth/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main(
        "cliauth", argc, argv,
        [](http::Router& r, const config::Config&) {
            api::add(r, cliauth::kStart, cliauth::start);
            api::add(r, cliauth::kDetails, cliauth::details);
            api::add(r, cliauth::kApprove, cliauth::approve);
            api::add(r, cliauth::kDeny, cliauth::deny);
            api::add(r, cliauth::kToken, cliauth::token);
            api::add(r, cliauth::kRefresh, cliauth::refresh);
            api::add(r, cliauth::kConnectToken, cliauth::connect_token);
        },
        api::HandlerOptions{.wakeups = wakeup::Topic::login});
}
