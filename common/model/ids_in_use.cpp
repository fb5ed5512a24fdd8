// ids_in_use.cpp -- the lookups behind pouch_id_in_use and member_id_in_use, shared by the
// account, cliauth and sync groups.
#include "common/model/ids_in_use.h"

namespace pouch::model {

namespace {

const db::Statement kPouchIdInUse{"model_pouch_id_in_use", "SELECT 1 FROM pouches WHERE id = $1"};

const db::Statement kMemberIdInUse{"model_member_id_in_use", "SELECT 1 FROM members WHERE id = $1"};

}  // namespace

bool pouch_id_in_use(db::Conn& conn, const std::string& pouch_id) {
    return conn.exec(kPouchIdInUse, {pouch_id}).rows() > 0;
}

bool member_id_in_use(db::Conn& conn, const std::string& member_id) {
    return conn.exec(kMemberIdInUse, {member_id}).rows() > 0;
}

}  // namespace pouch::model
