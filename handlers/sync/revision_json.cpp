// revision_json.cpp -- the Revision writer of the event page: the row's rev_* columns read into
// a Revision by Revision::revision_columns() (each found by its name in the result), written by
// its JSON description.
#include "handlers/sync/revision_json.h"

#include <tuple>

#include "common/db/query.h"
#include "handlers/sync/types.h"

namespace pouch::sync {

void write_revision(json::Out& o, const db::Result& r, int row) {
    if (r.is_null(row, r.column("rev_id"))) {
        o.null();
        return;
    }
    Revision rev;
    std::apply(
        [&](const auto&... c) {
            (db::detail::read(r, row, r.column(c.name), "events page", c.name, rev.*(c.member)),
             ...);
        },
        Revision::revision_columns());
    o.obj();
    json::write_members(o, rev);
    o.end_obj();
}

}  // namespace pouch::sync
