// server.h -- the FastCGI server loop shared by every handler binary: N worker threads on
// one listen socket (systemd's fd 0 / LISTEN_FDS, or its own unix socket), request parsing,
// routing, body limits, one JSON log line per request, graceful shutdown on SIGTERM/SIGINT.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/config/config.h"
#include "common/db/pool.h"
#include "common/http/parking.h"
#include "common/http/router.h"
#include "common/redis/client.h"
#include "common/wakeup/wakeup.h"

namespace pouch {

namespace auth {
class ReplayCache;
}

// What every route gets besides its request.
struct Services {
    const Config& config;
    db::Pool& db;
    redis::Client& redis;
    auth::ReplayCache& replay;
    Parking* parking = nullptr;  // set for groups that long-poll (HandlerOptions::wakeups)
};

struct HandlerOptions {
    // Set for a group that parks long-polls: a Redis subscriber to these wake-ups only
    // (common/wakeup) and poll threads.
    std::optional<wakeup::Topic> wakeups;
};

// Adds GET /v1/health ({status, database, redis}).
void add_health_route(Router& router);

// Runs until SIGTERM/SIGINT; returns the process exit code. `group` names the handler in
// logs. Opens the listen socket as described above.
int serve(const std::string& group, Router& router, Services& services);

// The usual main(): config from the environment, pool, redis, health route, serve.
// `install` adds the group's routes.
int handler_main(const std::string& group, int argc, char** argv,
                 const std::function<void(Router&)>& install, HandlerOptions options = {});

}  // namespace pouch
