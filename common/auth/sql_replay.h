// sql_replay.h -- the statements of the DPoP replay cache's PostgreSQL fallback
// (replay_cache.cpp; table dpop_replay of sql/001_init.sql).
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::auth::sql {

struct ReplayKey {
    std::string jkt, jti;
    static auto db_params() {
        return std::tuple{db::col("jkt", &ReplayKey::jkt), db::col("jti", &ReplayKey::jti)};
    }
};

struct ReplayRecord {
    std::string jkt, jti;
    int ttl_seconds = 0;
    static auto db_params() {
        return std::tuple{db::col("jkt", &ReplayRecord::jkt), db::col("jti", &ReplayRecord::jti),
                          db::col("ttl_seconds", &ReplayRecord::ttl_seconds)};
    }
};

struct Seen {
    int seen = 1;
    static auto db_columns() { return std::tuple{db::col("seen", &Seen::seen)}; }
};

struct Live {
    bool live = false;
    static auto db_columns() { return std::tuple{db::col("live", &Live::live)}; }
};

// An expired row counts as unseen: the upsert overwrites it, and only then returns a row.
inline const db::Query<ReplayRecord, Seen> kRecord{
    "replay_record",
    "INSERT INTO dpop_replay (jkt, jti, expires_at) "
    "VALUES ($1, $2, now() + make_interval(secs => $3::int)) "
    "ON CONFLICT (jkt, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at "
    "WHERE dpop_replay.expires_at <= now() "
    "RETURNING 1 AS seen"};

inline const db::Query<ReplayKey, Seen> kSeen{
    "replay_seen",
    "SELECT 1 AS seen FROM dpop_replay WHERE jkt = $1 AND jti = $2 AND expires_at > now()"};

// Served by the expires_at index: an empty or expired table costs one index probe.
inline const db::Query<db::NoParams, Live> kAnyLive{
    "replay_any_live", "SELECT EXISTS (SELECT 1 FROM dpop_replay WHERE expires_at > now()) AS live"};

// Rows only accumulate during Redis outages; sweeping at most once a minute keeps the table
// small without a separate job.
inline const db::Query<db::NoParams> kSweep{"replay_sweep",
                                            "DELETE FROM dpop_replay WHERE expires_at <= now()"};

}  // namespace pouch::auth::sql
