// keys.h -- the parameter structs most statements are keyed by (query.h), declared once:
// a row by its id, the rows of an account, a pouch of an account.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::db {

struct ById {
    std::string id;
    static auto db_params() { return std::tuple{col("id", &ById::id)}; }
};

struct ByAccount {
    std::string account_id;
    static auto db_params() { return std::tuple{col("account_id", &ByAccount::account_id)}; }
};

struct PouchOfAccount {
    std::string pouch_id, account_id;
    static auto db_params() {
        return std::tuple{col("pouch_id", &PouchOfAccount::pouch_id),
                          col("account_id", &PouchOfAccount::account_id)};
    }
};

}  // namespace pouch::db
