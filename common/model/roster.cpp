// roster.cpp -- see roster.h.
#include "common/model/roster.h"

#include <string>

#include "common/json/value.h"

namespace pouch::model {

namespace {

const db::Statement kRosterLock{
    "model_roster_lock", "SELECT pg_advisory_xact_lock(hashtextextended('roster:' || $1, 0))"};

const db::Statement kAppendRoster{
    "model_append_roster",
    "INSERT INTO roster_entries (account_id, idx, statement, signature)"
    " SELECT $1, coalesce((SELECT max(idx) + 1 FROM roster_entries WHERE account_id = $1), 0),"
    "        $2, $3"
    " WHERE NOT EXISTS (SELECT 1 FROM roster_entries WHERE account_id = $1 AND statement = $2)"
    " RETURNING idx"};

const db::Statement kNextRosterIndex{
    "model_next_roster_index",
    "SELECT coalesce(max(idx) + 1, 0) AS next FROM roster_entries WHERE account_id = $1"};

}  // namespace

void lock_roster(db::Conn& conn, const std::string& account_id) {
    conn.exec(kRosterLock, {account_id});
}

long long append_roster(db::Conn& conn, const std::string& account_id,
                        const rapidjson::Value& statements, long long* appended) {
    lock_roster(conn, account_id);
    long long first = conn.exec(kNextRosterIndex, {account_id}).int64(0, "next");
    long long n = 0;
    for (const auto& s : statements.GetArray()) {
        n += conn.exec(kAppendRoster,
                       {account_id, json::text(s["statement"]), json::text(s["signature"])})
                 .rows();
    }
    if (appended) *appended = n;
    return first;
}

}  // namespace pouch::model
