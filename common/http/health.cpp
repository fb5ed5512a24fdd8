// health.cpp -- GET /v1/health, served by every group: 200 {status, database, redis} while
// the database answers ("degraded" when only Redis is down, since logins and long-polls
// then run on the database fallback); 503 `unavailable` with the same details otherwise.
// The probe (SELECT 1, Redis PING) runs at most once a second per process and its result is
// shared, so a flood of health checks costs the database and Redis nothing: the answer
// may be up to a second old (docs/DECISIONS.md).
#include <chrono>
#include <mutex>
#include <optional>

#include "common/http/server.h"
#include "common/http/sql_health.h"
#include "common/json/out.h"

namespace pouch::http {

namespace {

bool database_ok(db::Pool& pool) {
    try {
        auto c = pool.acquire();
        c->one(sql::kPing, {});
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

struct Probe {
    bool db_up;
    bool redis_up;
};

class ProbeCache {
  public:
    Probe get(Services& s) {
        using Clock = std::chrono::steady_clock;
        {
            std::lock_guard<std::mutex> lock(mu_);
            // Fresh, or another thread is refreshing it: the last result will do.
            if (last_ && (Clock::now() - at_ < kMaxAge || refreshing_)) return *last_;
            refreshing_ = true;
        }
        Probe p{database_ok(s.db), s.redis.ping()};
        std::lock_guard<std::mutex> lock(mu_);
        last_ = p;
        at_ = Clock::now();
        refreshing_ = false;
        return p;
    }

  private:
    static constexpr std::chrono::seconds kMaxAge{1};
    std::mutex mu_;
    std::optional<Probe> last_;
    std::chrono::steady_clock::time_point at_;
    bool refreshing_ = false;
};

}  // namespace

void add_health_route(Router& router) {
    router.add("GET", "/v1/health", [](Request&, Services& s) {
        static ProbeCache cache;
        auto [db_up, redis_up] = cache.get(s);
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

}  // namespace pouch::http
