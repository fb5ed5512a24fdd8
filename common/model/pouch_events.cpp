// pouch_events.cpp -- see pouch_events.h; the statements are sql_pouch_events.h's.
#include "common/model/pouch_events.h"

#include "common/model/sql_pouch_events.h"

namespace pouch::model {

void append_pouch_events(db::Conn& conn, const std::vector<std::string>& pouch_ids,
                         const std::string& kind, const std::string& device_id) {
    if (pouch_ids.empty()) return;
    conn.run(sql::kLockPouches, {.pouch_ids = pouch_ids});  // in id order, as every writer locks
    conn.run(sql::kAppendEvents,
             {.pouch_ids = pouch_ids,
              .kind = kind,
              .device_id = device_id.empty() ? std::nullopt : std::optional(device_id)});
}

std::vector<std::string> append_roster_events(db::Conn& conn, const std::string& account_id,
                                              const std::string& device_id) {
    std::vector<std::string> ids;
    for (const sql::PouchId& p : conn.rows(sql::kAccountPouches, {.account_id = account_id}))
        ids.push_back(p.id);
    append_pouch_events(conn, ids, "roster", device_id);
    return ids;
}

}  // namespace pouch::model
