// pouch_json.h -- the pouch object of decisions §5.1: {id, epoch, key_gen, high_water,
// created_at}, from a row selected with POUCH_JSON_COLUMNS.
#pragma once

#include "common/db/pool.h"
#include "common/json/out.h"

namespace pouch::sync {

inline void write_pouch(json::Out& o, const db::Result& r, int row) {
    o.obj();
    o.kv("id", r.text(row, "id")).kv("epoch", r.text(row, "epoch"));
    o.kv("key_gen", r.int64(row, "key_gen")).kv("high_water", r.int64(row, "high_water"));
    o.kv("created_at", r.text(row, "created_at"));
    o.end_obj();
}

}  // namespace pouch::sync
