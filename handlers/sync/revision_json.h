// revision_json.h -- writes the Revision object (types.h) of a row of the event page, which is
// still a plain statement (sql_reads.h kEventsPage): its rev_* columns (POUCH_REVISION_COLUMNS)
// are read by the names Revision::revision_columns() gives them, the one list the typed
// artifact and revision pages read too.
#pragma once

#include "common/db/pool.h"
#include "common/json/out.h"

namespace pouch::sync {

// Writes the object, or null when the row has no revision (rev_id NULL, e.g. an outer join).
void write_revision(json::Out& o, const db::Result& r, int row);

}  // namespace pouch::sync
