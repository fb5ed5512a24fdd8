// roster.cpp -- see roster.h.
#include "common/model/roster.h"

#include <string>

#include "common/json/value.h"
#include "common/model/sql.h"

namespace pouch::model {

void lock_roster(db::Conn& conn, const std::string& account_id) {
    conn.one(sql::kRosterLock, {.account_id = account_id});
}

long long append_roster(db::Conn& conn, const std::string& account_id,
                        const rapidjson::Value& statements, long long* appended) {
    lock_roster(conn, account_id);
    long long first = conn.one(sql::kNextRosterIndex, {.account_id = account_id}).next;
    long long n = 0;
    for (const auto& s : statements.GetArray()) {
        n += conn.maybe_one(sql::kAppendRoster, {.account_id = account_id,
                                                  .statement = json::text(s["statement"]),
                                                  .signature = json::text(s["signature"])})
                 ? 1
                 : 0;
    }
    if (appended) *appended = n;
    return first;
}

}  // namespace pouch::model
