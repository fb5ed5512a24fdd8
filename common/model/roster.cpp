// roster.cpp -- see roster.h; the statements are sql_roster.h's.
#include "common/model/roster.h"

#include <string>

#include "common/json/value.h"
#include "common/model/sql_roster.h"

namespace pouch::model {

void lock_roster(db::Conn& conn, const std::string& account_id) {
    conn.run(sql::kRosterLock, {.account_id = account_id});
}

long long append_roster(db::Conn& conn, const std::string& account_id,
                        const rapidjson::Value& statements, long long* appended) {
    lock_roster(conn, account_id);
    long long first = conn.one(sql::kNextRosterIndex, {.account_id = account_id}).next;
    long long n = 0;
    for (const auto& s : statements.GetArray()) {
        n += conn.run(sql::kAppendRoster, {.account_id = account_id,
                                           .statement = json::text(s["statement"]),
                                           .signature = json::text(s["signature"])});
    }
    if (appended) *appended = n;
    return first;
}

}  // namespace pouch::model
