// pouch_access.cpp -- loads (and optionally locks) a pouch of the caller's account.
#include "handlers/sync/pouch_access.h"

#include "common/http/error.h"
#include "handlers/sync/sql_pouches.h"

namespace pouch::sync {

PouchRow load_pouch(db::Conn& conn, const std::string& pouch_id, const auth::Caller& c,
                    bool for_update) {
    db::Result r =
        conn.exec(for_update ? sql::kPouchForUpdate : sql::kPouch, {pouch_id, c.account_id});
    if (r.rows() == 0) throw http::not_found();
    PouchRow p;
    p.id = r.text(0, "id");
    p.account_id = r.text(0, "account_id");
    p.epoch = r.text(0, "epoch");
    p.key_gen = r.int64(0, "key_gen");
    p.high_water = r.int64(0, "high_water");
    p.stored_bytes = r.int64(0, "stored_bytes");
    p.created_at = r.text(0, "created_at");
    return p;
}

}  // namespace pouch::sync
