// metrics_endpoint.cpp -- the metrics route and the standard probes (metrics_endpoint.h).
// Route labels are the patterns the dispatcher matched (Request::route), so only the server's
// own patterns ever become label values.
#include "common/api/metrics_endpoint.h"

#include "common/http/error.h"
#include "common/http/server.h"

namespace pouch::api {

MetricsEndpoint::MetricsEndpoint(const std::string& group, http::Router& router,
                                 http::Services& services) {
    http::RouteFn serve = [group](http::Request& r, http::Services&) {
        // nginx maps /metrics/<group>[/<host>] to this group's socket; another group's name
        // here means a wrong map entry, which must not pass for this group's metrics.
        if (r.param("group") != group) throw Error(Code::not_found, "no such metrics");
        http::Response resp;
        resp.raw = true;
        resp.headers.emplace_back("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        resp.headers.emplace_back("Cache-Control", "no-store");
        resp.raw_body = metrics::scrape();
        return resp;
    };
    router.add("GET", "/metrics/{group:seg}", serve);
    router.add("GET", "/metrics/{group:seg}/{host:seg}", serve);
    metrics::init(group);

    db::Pool& pool = services.db;
    probes_.push_back(metrics::add_probe("pouch_db_pool_size",
                                         "Database connections this process may open.",
                                         metrics::Kind::gauge, [&pool] { return pool.size(); }));
    probes_.push_back(metrics::add_probe("pouch_db_pool_in_use",
                                         "Database connections leased to requests now.",
                                         metrics::Kind::gauge, [&pool] { return pool.in_use(); }));
    probes_.push_back(metrics::add_probe("pouch_db_pool_waiting",
                                         "Requests waiting for a database connection now.",
                                         metrics::Kind::gauge, [&pool] { return pool.waiting(); }));
    http::Parking* parking = services.parking;
    redis::Client& redis = services.redis;
    probes_.push_back(metrics::add_probe(
        "pouch_longpolls_parked", "Long-polls parked in this process (events, token waits).",
        metrics::Kind::gauge,
        [parking] { return parking ? static_cast<double>(parking->parked()) : 0.0; }));
    probes_.push_back(metrics::add_probe(
        "pouch_redis_fallback_active",
        "1 while Redis is unreachable and the database serves instead (DPoP replay cache, "
        "long-poll wake-ups by a one-second re-read), else 0.",
        metrics::Kind::gauge, [parking, &redis] {
            // A long-polling group knows from its subscriber; the others ask (one PING).
            bool down = parking ? !parking->connected() : !redis.ping();
            return down ? 1.0 : 0.0;
        }));
}

}  // namespace pouch::api
