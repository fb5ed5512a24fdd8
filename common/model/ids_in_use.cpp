// ids_in_use.cpp -- the lookups behind pouch_id_in_use and member_id_in_use (sql_ids_in_use.h),
// shared by the account, cliauth and sync groups.
#include "common/model/ids_in_use.h"

#include "common/model/sql_ids_in_use.h"

namespace pouch::model {

bool pouch_id_in_use(db::Conn& conn, const std::string& pouch_id) {
    return conn.one(sql::kPouchIdInUse, {.id = pouch_id}).in_use;
}

bool member_id_in_use(db::Conn& conn, const std::string& member_id) {
    return conn.one(sql::kMemberIdInUse, {.id = member_id}).in_use;
}

}  // namespace pouch::model
