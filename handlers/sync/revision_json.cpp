// revision_json.cpp -- the Revision object writer shared by the artifact list (its head) and
// the revision history. blob_ids arrive as PostgreSQL's JSON text of a text[] of b64url ids.
#include "handlers/sync/revision_json.h"

namespace pouch::sync {

void write_revision(json::Out& o, const db::Result& r, int row) {
    if (r.is_null(row, r.column("rev_id"))) {
        o.null();
        return;
    }
    o.obj();
    o.kv("id", r.text(row, "rev_id"));
    o.kv("artifact_id", r.text(row, "rev_artifact_id"));
    o.kv("envelope", r.text(row, "rev_envelope"));
    o.kv("envelope_hash", r.text(row, "rev_envelope_hash"));
    o.kv("signature", r.text(row, "rev_signature"));
    o.kv("signer_member_id", r.text(row, "rev_signer_member_id"));
    o.kv("key_gen", r.int64(row, "rev_key_gen"));
    o.kv("stored_size", r.int64(row, "rev_stored_size"));
    o.kv("origin", r.text(row, "rev_origin"));
    o.key("blob_ids").raw(r.text(row, "rev_blob_ids"));
    o.kv("created_at", r.text(row, "rev_created_at"));
    o.kv("seq", r.int64(row, "rev_seq"));
    o.kv("kind", r.text(row, "rev_kind"));
    o.kv("base_revision_id", r.opt(row, "rev_base_revision_id"));
    o.kv("merge_parent_id", r.opt(row, "rev_merge_parent_id"));
    o.kv("conflict_id", r.opt(row, "rev_conflict_id"));
    o.end_obj();
}

}  // namespace pouch::sync
