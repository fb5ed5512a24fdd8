// pouch_events.cpp -- see pouch_events.h.
#include "common/model/pouch_events.h"

#include "common/db/array.h"

namespace pouch::model {

namespace {

const db::Statement kLockPouches{
    "model_lock_pouches",
    "SELECT id FROM pouches WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE"};

const db::Statement kAppendEvents{
    "model_append_events",
    "WITH bumped AS ("
    "  UPDATE pouches SET high_water = high_water + 1 WHERE id = ANY($1::uuid[])"
    "  RETURNING id, epoch, high_water, key_gen)"
    " INSERT INTO events (pouch_id, epoch, seq, kind, device_id, key_gen)"
    " SELECT id, epoch, high_water, $2, $3::uuid, key_gen FROM bumped"};

const db::Statement kAccountPouches{"model_account_pouches",
                                    "SELECT id FROM pouches WHERE account_id = $1 ORDER BY id"};

}  // namespace

void append_pouch_events(db::Conn& conn, const std::vector<std::string>& pouch_ids,
                         const std::string& kind, const std::string& device_id) {
    if (pouch_ids.empty()) return;
    std::string ids = db::text_array(pouch_ids);
    conn.exec(kLockPouches, {ids});  // in id order, the order every writer uses
    conn.exec(kAppendEvents, {ids, kind, device_id.empty() ? db::Param() : db::Param(device_id)});
}

std::vector<std::string> append_roster_events(db::Conn& conn, const std::string& account_id,
                                              const std::string& device_id) {
    db::Result r = conn.exec(kAccountPouches, {account_id});
    std::vector<std::string> ids;
    for (int i = 0; i < r.rows(); ++i) ids.push_back(r.text(i, 0));
    append_pouch_events(conn, ids, "roster", device_id);
    return ids;
}

}  // namespace pouch::model
