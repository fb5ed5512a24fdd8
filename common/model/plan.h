// plan.h -- the Plan resource (interface "Plan" table) as the account and admin groups
// render it: one column list for SELECTs and one writer, so both show the same object.
#pragma once

#include <string>

#include <optional>
#include <tuple>

#include "common/db/pool.h"
#include "common/json/described.h"
#include "common/json/out.h"

namespace pouch::model {

// Columns to select (from table alias p) for write_plan().
#define POUCH_PLAN_COLUMNS                                                                  \
    "p.id AS plan_id, p.slug, p.name, p.description, p.price_cents, p.currency, p.interval," \
    " p.pouch_limit, p.storage_bytes, p.billing_product_id, p.is_default, p.is_public,"     \
    " p.is_active, p.sort"

// Writes the Plan object of row `row` as the next value of `o`.
void write_plan(json::Out& o, const db::Result& r, int row);

// The Plan object, described once (json/described.h): an answer's member, and the columns of a
// typed statement that selects POUCH_PLAN_FIELDS (a row struct may derive from it).
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
};

// Plan's columns, named and ordered as its fields (from table alias p).
#define POUCH_PLAN_FIELDS                                                                   \
    "p.id, p.slug, p.name, p.description, p.price_cents, p.currency, p.interval,"           \
    " p.pouch_limit, p.storage_bytes, p.billing_product_id, p.is_default, p.is_public,"     \
    " p.is_active, p.sort"

}  // namespace pouch::model
