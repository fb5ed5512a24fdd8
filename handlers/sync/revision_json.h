// revision_json.h -- writes the Revision object (interface "Revision", plus the additive
// fields seq, kind, base_revision_id, merge_parent_id, conflict_id) from a result row that
// selected POUCH_REVISION_COLUMNS (handlers/sync/sql_reads.h).
#pragma once

#include "common/db/pool.h"
#include "common/json/out.h"

namespace pouch::sync {

// Writes the object, or null when the row has no revision (rev_id NULL, e.g. an outer join).
void write_revision(json::Out& o, const db::Result& r, int row);

}  // namespace pouch::sync
