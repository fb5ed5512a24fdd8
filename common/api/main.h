// main.h -- the usual main() of a handler binary: configuration from the environment, the
// database pool, Redis, the DPoP replay cache, long-poll parking for the groups that wait,
// the health and metrics routes, the group's routes, then the server loop (common/http).
//
//   int main(int argc, char** argv) {
//       return pouch::api::handler_main("devices", argc, argv,
//                                       [](pouch::http::Router& r, const pouch::config::Config&) {
//           pouch::api::add(r, devices::kRoutes);  // the group's one table (routes.h)
//       });
//   }
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/config/config.h"
#include "common/http/router.h"
#include "common/wakeup/wakeup.h"

namespace pouch::api {

struct HandlerOptions {
    // Set for a group that parks long-polls: a Redis subscriber to these wake-ups only
    // (common/wakeup) and poll threads.
    std::optional<wakeup::Topic> wakeups;
};

// Returns the process exit code: 2 on bad configuration, 1 if startup failed, else the
// server's. `install` adds the group's routes, given the configuration read once at start.
// `--socket PATH` overrides POUCH_SOCKET.
int handler_main(const std::string& group, int argc, char** argv,
                 const std::function<void(http::Router&, const config::Config&)>& install,
                 HandlerOptions options = {});

}  // namespace pouch::api
