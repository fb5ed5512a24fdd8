// sql_ids_in_use.h -- the lookups behind pouch_id_in_use and member_id_in_use (ids_in_use.cpp),
// in a header so tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <string>
#include <tuple>

#include "common/db/query.h"

namespace pouch::model::sql {

struct ById {
    std::string id;
    static auto db_params() { return std::tuple{db::col("id", &ById::id)}; }
};

struct InUse {
    bool in_use = false;
    static auto db_columns() { return std::tuple{db::col("in_use", &InUse::in_use)}; }
};

inline const db::Query<ById, InUse> kPouchIdInUse{
    "model_pouch_id_in_use", "SELECT EXISTS (SELECT 1 FROM pouches WHERE id = $1) AS in_use"};

inline const db::Query<ById, InUse> kMemberIdInUse{
    "model_member_id_in_use", "SELECT EXISTS (SELECT 1 FROM members WHERE id = $1) AS in_use"};

}  // namespace pouch::model::sql
