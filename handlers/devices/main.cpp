// main.cpp -- the devices handler: the account's CLI devices, renaming and revocation.
#include "common/http/server.h"
#include "handlers/devices/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    RouteOptions big;  // a revoke may carry a roster rotation with 2,000 envelopes
    big.body_limit = 16 * kMiB;
    return handler_main("devices", argc, argv, [&](Router& r) {
        r.add("GET", "/v1/devices", devices::list);
        r.add("PATCH", "/v1/devices/{id:uuid}", devices::rename);
        r.add("POST", "/v1/devices/{id:uuid}/revoke", devices::revoke, big);
    });
}
