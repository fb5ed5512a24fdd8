// plan.h -- the Plan resource (interface "Plan" table) as the account and admin groups
// render it: one column list for SELECTs and one writer, so both show the same object.
#pragma once

#include <string>

#include "common/db/pool.h"
#include "common/json/out.h"

namespace pouch::model {

// Columns to select (from table alias p) for write_plan().
#define POUCH_PLAN_COLUMNS                                                                  \
    "p.id AS plan_id, p.slug, p.name, p.description, p.price_cents, p.currency, p.interval," \
    " p.pouch_limit, p.storage_bytes, p.billing_product_id, p.is_default, p.is_public,"     \
    " p.is_active, p.sort"

// Writes the Plan object of row `row` as the next value of `o`.
void write_plan(json::Out& o, const db::Result& r, int row);

}  // namespace pouch::model
