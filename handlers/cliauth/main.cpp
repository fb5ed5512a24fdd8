// main.cpp -- the cliauth handler: CLI login requests, approval, token redemption (with
// long-polls woken through Redis), refresh and connect tokens.
#include "common/api/main.h"
#include "handlers/cliauth/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main(
        "cliauth", argc, argv,
        [](http::Router& r, const config::Config&) {
            api::add(r, cliauth::kStart, api::typed(cliauth::start));
            api::add(r, cliauth::kDetails, api::typed(cliauth::details));
            api::add(r, cliauth::kApprove, api::typed(cliauth::approve));
            api::add(r, cliauth::kDeny, api::typed(cliauth::deny));
            api::add(r, cliauth::kToken, api::typed(cliauth::token));
            api::add(r, cliauth::kRefresh, api::typed(cliauth::refresh));
            api::add(r, cliauth::kConnectToken, api::typed(cliauth::connect_token));
        },
        api::HandlerOptions{.wakeups = wakeup::Topic::login});
}
