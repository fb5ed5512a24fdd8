// main.cpp -- the cliauth handler: CLI login requests, approval, token redemption (with
// long-polls woken through Redis), refresh and connect tokens.
#include "common/http/server.h"
#include "handlers/cliauth/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    RouteOptions big;  // approve carries a welcome and up to 2,000 envelopes
    big.body_limit = 16 * kMiB;
    return handler_main(
        "cliauth", argc, argv,
        [&](Router& r) {
            r.add("POST", "/v1/cli-auth/requests", cliauth::start);
            r.add("GET", "/v1/cli-auth/requests/{id:uuid}", cliauth::details);
            r.add("POST", "/v1/cli-auth/requests/{id:uuid}/approve", cliauth::approve, big);
            r.add("POST", "/v1/cli-auth/requests/{id:uuid}/deny", cliauth::deny);
            r.add("POST", "/v1/cli-auth/token", cliauth::token);
            r.add("POST", "/v1/cli-auth/refresh", cliauth::refresh);
            r.add("POST", "/v1/cli-auth/connect-tokens", cliauth::connect_token);
        },
        HandlerOptions{.long_poll = true});
}
