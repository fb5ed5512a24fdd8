// main.cpp -- handler_main() of main.h: the composition root of a handler binary.
#include "common/api/main.h"

#include <malloc.h>

#include <cstring>
#include <memory>

#include "common/api/metrics_endpoint.h"
#include "common/auth/replay_cache.h"
#include "common/config/config.h"
#include "common/db/pool.h"
#include "common/http/parking.h"
#include "common/http/server.h"
#include "common/log/log.h"
#include "common/redis/client.h"

namespace pouch::api {

int handler_main(const std::string& group, int argc, char** argv,
                 const std::function<void(http::Router&, const config::Config&)>& install,
                 HandlerOptions options) {
    // Request bodies are megabytes (docs/SECURITY.md, "A hostile tenant"). glibc would raise
    // its mmap threshold to the size of the first such buffer freed and serve later ones from
    // its per-thread arenas, which keep what they held: a burst of large requests would leave
    // the process at its peak size. A fixed threshold gives every block of 256 KiB or more
    // back to the system as soon as it is freed.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    config::Config config;
    try {
        config = config::Config::from_env();
        for (int i = 1; i + 1 < argc; ++i)
            if (std::strcmp(argv[i], "--socket") == 0) config.socket_path = argv[++i];
        config.check();
        // A URL it cannot use would look like Redis being down for the process's whole life.
        if (!redis::Client::parse_url(config.redis_url))
            throw config::BadConfig(
                "POUCH_REDIS_URL must be redis://[[user]:password@]host[:port][/db] (user and "
                "password percent-encoded)");
    } catch (const std::exception& e) {
        log::init(group, "info");
        log::error("bad configuration", {{"error", e.what()}});
        return 2;
    }
    log::init(group, config.log_level);
    try {
        db::Pool pool(config.database_url, config.db_pool);
        redis::Client redis(config.redis_url);
        auth::ReplayCache replay(redis, pool);
        std::unique_ptr<http::Parking> parking;
        if (options.wakeups)
            parking = std::make_unique<http::Parking>(
                config.redis_url, wakeup::pattern(*options.wakeups), config.db_pool,
                static_cast<size_t>(config.max_waiters_per_account));
        http::Services services{config, pool, redis, replay, parking.get()};
        http::Router router;
        add_health_route(router);
        install(router, config);
        MetricsEndpoint metrics_endpoint(group, router, services);  // docs/SCALING.md
        return serve(group, router, services);
    } catch (const config::BadConfig& e) {  // POUCH_LISTEN without its allow-list
        log::error("bad configuration", {{"error", e.what()}});
        return 2;
    } catch (const std::exception& e) {
        log::error("startup failed", {{"error", e.what()}});
        return 1;
    }
}

}  // namespace pouch::api
