// cursor.cpp -- PUT /v1/devices/me/cursor (op 9), CLI only (decisions §5.2): the device
// reports the last event seq it has acknowledged for a pouch and epoch; the stored value only
// ever grows (max(previous, acked_seq)), so a late or repeated report cannot move it back.
#include "common/auth/caller.h"
#include "common/json/out.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

namespace {

namespace js = json::schema;

const js::Node kCursor = js::object({
    js::req("pouch_id", js::uuid()),
    js::req("epoch", js::uuid()),
    js::req("acked_seq", js::integer().min(0).max(js::kMaxSafeInt)),
});

}  // namespace

Response cursor(Request& req, Services& s) {
    auth::Caller c = auth::require_cli(req, s);
    rapidjson::Document doc = json::parse_strict(req.body);
    js::validate(doc, kCursor);
    std::string pouch_id = doc["pouch_id"].GetString();
    std::string epoch = doc["epoch"].GetString();
    long long acked = doc["acked_seq"].GetInt64();

    auto conn = s.db.acquire();
    // No lock: high_water only grows, and a cursor stored for an epoch that an operator
    // resets meanwhile is keyed by that old epoch and never read for the new one.
    db::Result p = conn->exec(sql::kPouchForCursor, {pouch_id, c.account_id});
    if (p.rows() == 0) throw not_found();
    long long high_water = p.int64(0, "high_water");
    if (p.text(0, "epoch") != epoch) {
        json::Out d;
        d.kv("current_epoch", p.text(0, "epoch")).kv("high_water", high_water);
        throw ApiError(409, "epoch_mismatch", "the pouch's event log has another epoch")
            .with_details(d.done());
    }
    if (acked > high_water)
        throw validation_failed("/acked_seq", "must not exceed the pouch's high_water (" +
                                                  std::to_string(high_water) + ")");
    db::Result r = conn->exec(sql::kStoreCursor,
                              {c.device_id, pouch_id, epoch, std::to_string(acked)});
    json::Out o;
    o.kv("pouch_id", pouch_id).kv("epoch", epoch).kv("acked_seq", r.int64(0, "acked_seq"));
    Response resp;
    resp.data = o.done();
    return resp;
}

}  // namespace pouch::devices
