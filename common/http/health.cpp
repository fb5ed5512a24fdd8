// health.cpp -- GET /v1/health, served by every group: 200 {status, database, redis} while
// the database answers ("degraded" when only Redis is down, since logins and long-polls
// then run on the database fallback); 503 `unavailable` with the same details otherwise.
#include "common/http/server.h"
#include "common/json/out.h"

namespace pouch {

namespace {

const db::Statement kPing{"health_ping", "SELECT 1"};

bool database_ok(db::Pool& pool) {
    try {
        auto c = pool.acquire();
        c->exec(kPing);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

void add_health_route(Router& router) {
    router.add("GET", "/v1/health", [](Request&, Services& s) {
        bool db_up = database_ok(s.db);
        bool redis_up = s.redis.ping();
        if (!db_up) {
            json::Out d;
            d.kv("database", "down").kv("redis", redis_up ? "ok" : "down");
            throw unavailable("database unavailable").with_details(d.done());
        }
        json::Out o;
        o.kv("status", redis_up ? "ok" : "degraded").kv("database", "ok");
        o.kv("redis", redis_up ? "ok" : "down");
        Response r;
        r.data = o.done();
        return r;
    });
}

}  // namespace pouch
