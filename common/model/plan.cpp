// plan.cpp -- renders a plan row selected with POUCH_PLAN_COLUMNS.
#include "common/model/plan.h"

namespace pouch::model {

void write_plan(json::Out& o, const db::Result& r, int row) {
    o.obj();
    o.kv("id", r.text(row, "plan_id"));
    o.kv("slug", r.text(row, "slug"));
    o.kv("name", r.text(row, "name"));
    o.kv("description", r.text(row, "description"));
    o.kv("price_cents", r.int64(row, "price_cents"));
    o.kv("currency", r.text(row, "currency"));
    o.kv("interval", r.text(row, "interval"));
    o.kv("pouch_limit", r.int64(row, "pouch_limit"));
    o.kv("storage_bytes", r.int64(row, "storage_bytes"));
    o.kv("billing_product_id", r.opt(row, "billing_product_id"));
    o.kv("is_default", r.boolean(row, "is_default"));
    o.kv("is_public", r.boolean(row, "is_public"));
    o.kv("is_active", r.boolean(row, "is_active"));
    o.kv("sort", r.int64(row, "sort"));
    o.end_obj();
}

}  // namespace pouch::model
