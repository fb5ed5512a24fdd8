// pouch.cpp -- reads (and optionally locks) a pouch of an account into a PouchRow.
#include "common/model/pouch.h"

namespace pouch::model {

std::optional<PouchRow> find_pouch(db::Conn& conn, const std::string& pouch_id,
                                   const std::string& account_id, bool for_update) {
    const db::PouchOfAccount key{.pouch_id = pouch_id, .account_id = account_id};
    return conn.maybe_one(for_update ? sql::kPouchForUpdate : sql::kPouch, key);
}

}  // namespace pouch::model
