// commit_schema.h -- the request schema of POST /v1/pouches/{pouchId}/operations (op 1,
// decisions §5.3): what the commit route validates a body against (routes.h), and what the
// fuzz target tests/fuzz/fuzz_json_schema.cpp exercises.
#pragma once

#include <string>

#include "common/http/router.h"
#include "common/json/schema.h"

namespace pouch::sync {

// Each op's fields and bounds as the interface table of op 1.
namespace js = json::schema;

inline const js::Node kCommitOp = js::object({
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
    js::req("blob_ids",
            js::array(js::string().check([](std::string_view s) { return http::is_blob_id(s); },
                                         "a blob id (43 b64url characters)"))
                .max_items(1000)
                .distinct()),
});

// At most 50 ops.
inline const js::Node kCommitBody = js::object({
    js::req("operation_id", js::uuid()),
    js::req("epoch", js::uuid()),
    js::req("ops", js::array(kCommitOp).min_items(1).max_items(50)),
});

}  // namespace pouch::sync
