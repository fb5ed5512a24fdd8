// ids_in_use.cpp -- the lookups behind pouch_id_in_use and member_id_in_use, shared by the
// account, cliauth and sync groups.
#include "common/model/ids_in_use.h"

#include "common/model/sql.h"

namespace pouch::model {

bool pouch_id_in_use(db::Conn& conn, const std::string& pouch_id) {
    return conn.maybe_one(sql::kPouchIdInUse, {.id = pouch_id}).has_value();
}

bool member_id_in_use(db::Conn& conn, const std::string& member_id) {
    return conn.maybe_one(sql::kMemberIdInUse, {.id = member_id}).has_value();
}

}  // namespace pouch::model
