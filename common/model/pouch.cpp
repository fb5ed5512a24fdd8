// pouch.cpp -- reads (and optionally locks) a pouch of an account into a PouchRow.
#include "common/model/pouch.h"

namespace pouch::model {

std::optional<PouchRow> find_pouch(db::Conn& conn, const std::string& pouch_id,
                                   const std::string& account_id, bool for_update) {
    db::Result r =
        conn.exec(for_update ? sql::kPouchForUpdate : sql::kPouch, {pouch_id, account_id});
    if (r.rows() == 0) return std::nullopt;
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

}  // namespace pouch::model
