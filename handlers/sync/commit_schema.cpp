// commit_schema.cpp -- see commit_schema.h.
#include "handlers/sync/commit_schema.h"

#include <string>

#include "common/http/router.h"

namespace pouch::sync {

namespace js = json::schema;

namespace {

bool is_blob_id_string(const std::string& s) { return is_blob_id(s); }

}  // namespace

const js::Node& commit_schema() {
    static const js::Node op = js::object({
        js::req("type", js::string().min_chars(1).max_chars(32)),
        js::req("artifact_id", js::uuid()),
        js::req("revision_id", js::uuid()),
        js::opt("base_revision_id", js::uuid().nullable()),
        js::opt("merge_parent_id", js::uuid().nullable()),
        js::opt("name_index", js::b64url().min_chars(1).max_chars(512).nullable()),
        js::opt("conflict_id", js::uuid().nullable()),
        js::req("key_gen", js::integer().min(1).max(js::kMaxSafeInt)),
        js::req("envelope", js::string().min_chars(1).max_chars(1048576)),
        js::req("signature", js::string().min_chars(1).max_chars(342)),
        js::req("signer_member_id", js::uuid()),
        js::req("blob_ids", js::array(js::string().check(is_blob_id_string, "a blob id (43 b64url characters)"))
                                .max_items(1000)
                                .distinct()),
    });
    static const js::Node commit = js::object({
        js::req("operation_id", js::uuid()),
        js::req("epoch", js::uuid()),
        js::req("ops", js::array(op).min_items(1).max_items(50)),
    });
    return commit;
}

}  // namespace pouch::sync
