// server.h -- the FastCGI server loop shared by every handler binary: N worker threads sharing
// one epoll set of the listen socket (systemd's fd 0 / LISTEN_FDS, or its own unix socket) and
// the kept-alive connections (connections.h), request parsing, routing, body limits, one JSON
// log line per request, graceful shutdown on SIGTERM/SIGINT.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/config/config.h"
#include "common/db/pool.h"
#include "common/http/parking.h"
#include "common/http/router.h"
#include "common/redis/client.h"

namespace pouch::auth {
class ReplayCache;
}

namespace pouch::http {

// What every route gets besides its request.
struct Services {
    const config::Config& config;
    db::Pool& db;
    redis::Client& redis;
    auth::ReplayCache& replay;
    Parking* parking = nullptr;  // set for groups that long-poll (api::HandlerOptions::wakeups)
};

// Adds GET /v1/health ({status, database, redis}).
void add_health_route(Router& router);

// Runs until SIGTERM/SIGINT; returns the process exit code. `group` names the handler in
// logs. Opens the listen socket as described above.
int serve(const std::string& group, Router& router, Services& services);

}  // namespace pouch::http
