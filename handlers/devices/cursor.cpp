// cursor.cpp -- PUT /v1/devices/me/cursor (op 9), CLI only (decisions §5.2): the device
// reports the last event seq it has acknowledged for a pouch and epoch; the stored value only
// ever grows (max(previous, acked_seq)), so a late or repeated report cannot move it back.
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

CursorAnswer cursor(api::Call& call, const CursorRequest& body) {
    const auth::Caller& c = call.who();
    auto conn = call.services.db.acquire();
    // No lock: high_water only grows, and a cursor stored for an epoch that an operator
    // resets meanwhile is keyed by that old epoch and never read for the new one.
    auto log = conn->maybe_one(sql::kPouchForCursor,
                               {.pouch_id = body.pouch_id, .account_id = c.account_id});
    if (!log) throw http::not_found();
    if (log->epoch != body.epoch) throw http::epoch_mismatch(log->epoch, log->high_water);
    if (body.acked_seq > log->high_water)
        throw validation_failed("/acked_seq", "must not exceed the pouch's high_water (" +
                                                  std::to_string(log->high_water) + ")");
    sql::AckedSeq stored = conn->one(sql::kStoreCursor, {.device_id = c.device_id,
                                                    .pouch_id = body.pouch_id,
                                                    .epoch = body.epoch,
                                                    .acked_seq = body.acked_seq});
    return {.pouch_id = body.pouch_id, .epoch = body.epoch, .acked_seq = stored.acked_seq};
}

}  // namespace pouch::devices
