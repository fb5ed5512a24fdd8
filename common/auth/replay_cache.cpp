// replay_cache.cpp -- DPoP jti replay detection (replay_cache.h): Redis when it answers,
// otherwise an atomic upsert into dpop_replay (sql/001_init.sql; sql_replay_cache.h).
#include "common/auth/replay_cache.h"

#include "common/auth/sql_replay_cache.h"

namespace pouch::auth {

namespace {

long long now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

long long now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

ReplayCache::ReplayCache(redis::Client& redis, db::Pool& pool) : redis_(redis), pool_(pool) {}

bool ReplayCache::first_use(const std::string& jkt, const std::string& jti, int ttl_seconds) {
    std::optional<bool> fresh = redis_.set_nx_ex("pouch:dpop:" + jkt + ":" + jti, "1", ttl_seconds);
    if (fresh) {
        if (!*fresh) return false;
        if (now_seconds() < fallback_until_.load() || live_rows_in_db())
            return !seen_in_db(jkt, jti);
        return true;
    }
    long long until = now_seconds() + ttl_seconds;
    long long prev = fallback_until_.load();
    while (prev < until && !fallback_until_.compare_exchange_weak(prev, until)) {
    }
    return first_use_db(jkt, jti, ttl_seconds);
}

// A database error is left to render_guarded (common/http/response.cpp), which answers a lost
// connection 503 unavailable as this class promises, and anything else 500.
bool ReplayCache::first_use_db(const std::string& jkt, const std::string& jti, int ttl_seconds) {
    db::Lease c = pool_.acquire();  // throws 503 itself when the database is down
    long long now = now_seconds();
    long long last = last_sweep_.load();
    if (now - last >= 60 && last_sweep_.compare_exchange_strong(last, now))
        c->run(sql::kSweepProofs, {});
    return c->maybe_one(sql::kRecordProof, {.jkt = jkt, .jti = jti, .ttl_seconds = ttl_seconds})
        .has_value();
}

bool ReplayCache::live_rows_in_db() {
    long long now = now_ms();
    long long checked = live_checked_ms_.load();
    // One thread refreshes a stale answer; the others keep the last one meanwhile, or look the
    // proof up (true) while no answer is known yet.
    if (now - checked < 1000 || !live_checked_ms_.compare_exchange_strong(checked, now))
        return !live_known_.load() || live_rows_.load();
    try {
        db::Lease c = pool_.acquire();
        live_rows_ = c->one(sql::kAnyLive, {}).live;
        live_known_ = true;
    } catch (...) {
        live_checked_ms_ = checked;  // the next caller asks again
        throw;
    }
    return live_rows_.load();
}

bool ReplayCache::seen_in_db(const std::string& jkt, const std::string& jti) {
    db::Lease c = pool_.acquire();
    return c->one(sql::kProofSeen, {.jkt = jkt, .jti = jti}).live;
}

}  // namespace pouch::auth
