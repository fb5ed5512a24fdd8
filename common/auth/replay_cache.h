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
// in Postgres. Once Redis is back it would look unseen there, so while a fallback entry can
// still be live, a proof that Redis calls new is also looked up in Postgres. That costs a DB
// read only in the window after an outage. Several handler hosts serve the same paths
// (docs/SCALING.md), and the outage may have been one host's alone, so "a fallback entry can
// still be live" is known two ways: at once for this process's own fallbacks (the latest
// one's ttl), and for every other process's from the table itself (any unexpired row),
// asked at most once a second.
// Known gaps, accepted: a proof recorded by another host in Postgres less than a second
// before the same proof reaches this host, whose Redis answers, may pass once; a proof
// recorded only in Redis, replayed while Redis is down, is caught only if Redis kept the
// key. The DPoP `iat` window (about 3 minutes) bounds both.
class ReplayCache {
  public:
    ReplayCache(redis::Client& redis, db::Pool& pool);

    // True if (jkt, jti) was not seen within ttl_seconds, and records it; false on a replay.
    // Throws 503 `unavailable` when neither Redis nor Postgres can answer (a connection lost
    // mid-query surfaces as the database's Error, unavailable too).
    bool first_use(const std::string& jkt, const std::string& jti, int ttl_seconds = 600);

  private:
    bool first_use_db(const std::string& jkt, const std::string& jti, int ttl_seconds);
    bool seen_in_db(const std::string& jkt, const std::string& jti);
    bool live_rows_in_db();  // any unexpired fallback row, from any process; cached 1 s

    redis::Client& redis_;
    db::Pool& pool_;
    // steady_clock seconds until which fallback entries may still be live (0: none).
    std::atomic<long long> fallback_until_{0};
    std::atomic<long long> last_sweep_{0};
    std::atomic<long long> live_checked_ms_{-1000000};  // steady_clock ms of the last ask
    std::atomic<bool> live_rows_{false};
    std::atomic<bool> live_known_{false};  // live_rows_ has been read at least once
};

}  // namespace pouch::auth
