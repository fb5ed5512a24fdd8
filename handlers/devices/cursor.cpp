// cursor.cpp -- PUT /v1/devices/me/cursor (op 9), CLI only (decisions §5.2): the device
// reports the last event seq it has acknowledged for a pouch and epoch; the stored value only
// ever grows (max(previous, acked_seq)), so a late or repeated report cannot move it back.
#include "common/json/out.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

http::Response cursor(api::Call& call) {
    const auth::Caller& c = call.who();
    std::string pouch_id = json::text(call.body["pouch_id"]);
    std::string epoch = json::text(call.body["epoch"]);
    long long acked = call.body["acked_seq"].GetInt64();

    auto conn = call.services.db.acquire();
    // No lock: high_water only grows, and a cursor stored for an epoch that an operator
    // resets meanwhile is keyed by that old epoch and never read for the new one.
    db::Result p = conn->exec(sql::kPouchForCursor, {pouch_id, c.account_id});
    if (p.rows() == 0) throw http::not_found();
    long long high_water = p.int64(0, "high_water");
    if (p.text(0, "epoch") != epoch) throw http::epoch_mismatch(p.text(0, "epoch"), high_water);
    if (acked > high_water)
        throw validation_failed("/acked_seq", "must not exceed the pouch's high_water (" +
                                                  std::to_string(high_water) + ")");
    db::Result r =
        conn->exec(sql::kStoreCursor, {c.device_id, pouch_id, epoch, std::to_string(acked)});
    json::Out o;
    o.kv("pouch_id", pouch_id).kv("epoch", epoch).kv("acked_seq", r.int64(0, "acked_seq"));
    return api::ok(o.done());
}

}  // namespace pouch::devices
