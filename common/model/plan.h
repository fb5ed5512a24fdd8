// plan.h -- the Plan resource (interface "Plan" table) as the account and admin groups
// render it: one column list for SELECTs and one described struct (its JSON and its row), so
// both show the same object.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::model {

// Columns to select (from table alias p) for Plan, read with Plan::db_columns().
#define POUCH_PLAN_COLUMNS                                                                  \
    "p.id AS plan_id, p.slug, p.name, p.description, p.price_cents, p.currency, p.interval," \
    " p.pouch_limit, p.storage_bytes, p.billing_product_id, p.is_default, p.is_public,"     \
    " p.is_active, p.sort"

// The Plan object. A statement selects it with POUCH_PLAN_COLUMNS, whose names are its JSON
// names but for the id, plan_id (a statement that joins plans to another table has an id of
// its own).
struct Plan {
    std::string id, slug, name, description;
    long long price_cents = 0;
    std::string currency, interval;
    long long pouch_limit = 0, storage_bytes = 0;
    std::optional<std::string> billing_product_id;
    bool is_default = false, is_public = false, is_active = false;
    long long sort = 0;

    static auto json_fields() {
        return std::tuple{
            json::field("id", &Plan::id),
            json::field("slug", &Plan::slug),
            json::field("name", &Plan::name),
            json::field("description", &Plan::description),
            json::field("price_cents", &Plan::price_cents),
            json::field("currency", &Plan::currency),
            json::field("interval", &Plan::interval),
            json::field("pouch_limit", &Plan::pouch_limit),
            json::field("storage_bytes", &Plan::storage_bytes),
            json::field("billing_product_id", &Plan::billing_product_id),
            json::field("is_default", &Plan::is_default),
            json::field("is_public", &Plan::is_public),
            json::field("is_active", &Plan::is_active),
            json::field("sort", &Plan::sort),
        };
    }
    // The columns of POUCH_PLAN_COLUMNS: the JSON fields, the first (id) as plan_id.
    static auto db_columns() {
        return std::apply(
            [](const auto& id, const auto&... rest) {
                return std::tuple{db::col("plan_id", id.member),
                                  db::col(rest.name, rest.member)...};
            },
            json_fields());
    }
};

// Plan's columns named as its JSON fields, id included (table alias p), for a row struct that
// derives from Plan and lists Plan::json_fields() among its columns (the account overview).
#define POUCH_PLAN_FIELDS                                                                   \
    "p.id, p.slug, p.name, p.description, p.price_cents, p.currency, p.interval,"           \
    " p.pouch_limit, p.storage_bytes, p.billing_product_id, p.is_default, p.is_public,"     \
    " p.is_active, p.sort"

}  // namespace pouch::model
