// pouch_access.h -- the pouch row every path under /v1/pouches/{pouchId} starts from: a
// pouch of another account is not found (decisions §5.1: existence is never revealed).
#pragma once

#include <string>

#include "common/auth/caller.h"
#include "common/db/pool.h"

namespace pouch::sync {

struct PouchRow {
    std::string id;
    std::string account_id;
    std::string epoch;
    long long key_gen = 0;
    long long high_water = 0;
    long long stored_bytes = 0;
    std::string created_at;
};

// Throws not_found (404) when the pouch does not exist or is another account's. `for_update`
// locks the row (commits and key rotations serialise on it).
PouchRow load_pouch(db::Conn& conn, const std::string& pouch_id, const auth::Caller& c,
                    bool for_update = false);

}  // namespace pouch::sync
