// sql_replay_cache.h -- the statements of the DPoP jti replay cache's database fallback
// (replay_cache.cpp, table dpop_replay of sql/001_init.sql), in a header so
// tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::auth::sql {

struct Proof {
    std::string jkt, jti;
    static auto db_params() {
        return std::tuple{db::col("jkt", &Proof::jkt), db::col("jti", &Proof::jti)};
    }
};

struct RecordProof {
    std::string jkt, jti;
    int ttl_seconds = 0;
    static auto db_params() {
        return std::tuple{db::col("jkt", &RecordProof::jkt), db::col("jti", &RecordProof::jti),
                          db::col("ttl_seconds", &RecordProof::ttl_seconds)};
    }
};

struct Recorded {
    bool recorded = false;
    static auto db_columns() { return std::tuple{db::col("recorded", &Recorded::recorded)}; }
};

struct Live {
    bool live = false;
    static auto db_columns() { return std::tuple{db::col("live", &Live::live)}; }
};

// An expired row counts as unseen: the upsert overwrites it, and only then returns a row.
inline const db::Query<RecordProof, Recorded> kRecordProof{
    "replay_record",
    "INSERT INTO dpop_replay (jkt, jti, expires_at) "
    "VALUES ($1, $2, now() + make_interval(secs => $3::int)) "
    "ON CONFLICT (jkt, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at "
    "WHERE dpop_replay.expires_at <= now() "
    "RETURNING true AS recorded"};

inline const db::Query<Proof, Live> kProofSeen{
    "replay_seen",
    "SELECT EXISTS (SELECT 1 FROM dpop_replay WHERE jkt = $1 AND jti = $2 AND expires_at > now())"
    " AS live"};

// Served by the expires_at index: an empty or expired table costs one index probe.
inline const db::Query<db::NoParams, Live> kAnyLive{
    "replay_any_live",
    "SELECT EXISTS (SELECT 1 FROM dpop_replay WHERE expires_at > now()) AS live"};

// Rows only accumulate during Redis outages; sweeping at most once a minute keeps the table
// small without a separate job.
inline const db::Query<db::NoParams> kSweepProofs{
    "replay_sweep", "DELETE FROM dpop_replay WHERE expires_at <= now()"};

}  // namespace pouch::auth::sql
