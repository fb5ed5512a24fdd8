// ids_in_use.h -- whether an id a client minted is already taken by any account. Clients
// choose pouch and member ids (UUIDs), so genesis, POST /v1/pouches and the CLI approve
// refuse one in use with a validation error naming the field.
#pragma once

#include <string>

#include "common/db/pool.h"

namespace pouch::model {

bool pouch_id_in_use(db::Conn& conn, const std::string& pouch_id);
bool member_id_in_use(db::Conn& conn, const std::string& member_id);

}  // namespace pouch::model
