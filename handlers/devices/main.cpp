// main.cpp -- the devices handler: the account's CLI devices, renaming, revocation and
// the per-pouch acknowledged-seq cursor.
#include "common/api/main.h"
#include "handlers/devices/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("devices", argc, argv, [](http::Router& r, const config::Config&) {
        api::add(r, devices::kRoutes);
    });
}
