// replay_cache.h -- the DPoP `jti` replay cache (decisions §1): Redis SET NX EX first, the
// Postgres table dpop_replay when Redis is unreachable; a proof is never accepted unchecked.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "common/db/pool.h"
#include "common/redis/client.h"

namespace pouch::auth {

// Redis key: pouch:dpop:<jkt>:<jti>, expiring after ttl_seconds.
//
// Fallback and its one subtle case: a proof first seen while Redis was down is recorded only
// in Postgres. Once Redis is back it would look unseen there, so for as long as a fallback
// entry written by this process can still be live (the latest fallback's ttl), a proof that
// Redis calls new is also looked up in Postgres. That costs a DB read only in the window
// after an outage. Proofs are bound to the request path (htu), and each path is served by
// one handler process, so a process-local record of the fallback is enough.
// Known gap, accepted: a proof recorded only in Redis, replayed while Redis is down, is
// caught only if Redis kept the key; the DPoP `iat` window (about 3 minutes) bounds it.
class ReplayCache {
  public:
    ReplayCache(redis::Client& redis, db::Pool& pool);

    // True if (jkt, jti) was not seen within ttl_seconds, and records it; false on a replay.
    // Throws ApiError 503 `unavailable` when neither Redis nor Postgres can answer.
    bool first_use(const std::string& jkt, const std::string& jti, int ttl_seconds = 600);

  private:
    bool first_use_db(const std::string& jkt, const std::string& jti, int ttl_seconds);
    bool seen_in_db(const std::string& jkt, const std::string& jti);

    redis::Client& redis_;
    db::Pool& pool_;
    // steady_clock seconds until which fallback entries may still be live (0: none).
    std::atomic<long long> fallback_until_{0};
    std::atomic<long long> last_sweep_{0};
};

}  // namespace pouch::auth
