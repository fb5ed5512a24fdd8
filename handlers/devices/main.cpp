// main.cpp -- the devices handler: the account's CLI devices, renaming, revocation and
// the per-pouch acknowledged-seq cursor.
#include "common/http/server.h"
#include "handlers/devices/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    RouteOptions big;  // a revoke may carry a roster rotation with 2,000 envelopes
    big.body_limit = 16 * kMiB;
    return handler_main("devices", argc, argv, [&](Router& r) {
        r.add_query("GET", "/v1/devices", devices::list);
        r.add("PATCH", "/v1/devices/{id:uuid}", devices::rename);
        r.add("POST", "/v1/devices/{id:uuid}/revoke", devices::revoke, big);
        // Three segments after /v1 cannot match {id:uuid} (two), so "me" is no device id.
        r.add("PUT", "/v1/devices/me/cursor", devices::cursor);
    });
}
