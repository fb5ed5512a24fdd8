// main.cpp -- the shares handler: sealed share links (decisions §8). Only create takes a
// large body (decisions §3: 12 MiB, matching nginx's limit for the same path).
#include "common/http/server.h"
#include "handlers/shares/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    RouteOptions create_body;  // a bundle of 11,184,811 characters plus its label
    create_body.body_limit = 12 * kMiB;
    return handler_main("shares", argc, argv, [&](Router& r) {
        r.add("POST", "/v1/pouches/{pouchId:uuid}/shares", shares::create, create_body);
        r.add_query("GET", "/v1/pouches/{pouchId:uuid}/shares", shares::list);
        // A share id opens its share: logs show only its first 8 characters (decisions §13).
        RouteOptions fetch_opts;
        fetch_opts.body = BodyKind::none;
        fetch_opts.masked_params = {"id"};
        RouteOptions post_opts;
        post_opts.masked_params = {"id"};
        r.add("GET", "/v1/shares/{id:uuid}", shares::fetch, fetch_opts);
        r.add("POST", "/v1/shares/{id:uuid}/import", shares::import_share, post_opts);
        r.add("POST", "/v1/shares/{id:uuid}/revoke", shares::revoke, post_opts);
    });
}
