// share_json.h -- the Share object of interface.md ({id, pouch_id, label_enc, state,
// one_time, size, views, imports, expires_at, revoked_at, last_imported_at, created_at}) from
// a row selected with SHARE_COLUMNS (sql.h). The bundle is never part of it.
#pragma once

#include "common/db/pool.h"
#include "common/json/out.h"

namespace pouch::shares {

inline void write_share(json::Out& o, const db::Result& r, int row) {
    o.kv("id", r.text(row, "id")).kv("pouch_id", r.text(row, "pouch_id"));
    o.kv("label_enc", r.text(row, "label_enc")).kv("state", r.text(row, "state"));
    o.kv("one_time", r.boolean(row, "one_time")).kv("size", r.int64(row, "size"));
    o.kv("views", r.int64(row, "views")).kv("imports", r.int64(row, "imports"));
    o.kv("expires_at", r.opt(row, "expires_at")).kv("revoked_at", r.opt(row, "revoked_at"));
    o.kv("last_imported_at", r.opt(row, "last_imported_at"));
    o.kv("created_at", r.text(row, "created_at"));
}

// A Share object as the whole response data.
inline std::string share_data(const db::Result& r, int row) {
    json::Out o;
    write_share(o, r, row);
    return o.done();
}

}  // namespace pouch::shares
