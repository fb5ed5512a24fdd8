// sql_health.h -- the database probe of GET /v1/health (health.cpp).
#pragma once

#include <tuple>

#include "common/db/query.h"

namespace pouch::http::sql {

struct Pong {
    int one = 0;
    static auto db_columns() { return std::tuple{db::col("one", &Pong::one)}; }
};

inline const db::Query<db::NoParams, Pong> kPing{"health_ping", "SELECT 1 AS one"};

}  // namespace pouch::http::sql
