// commit_types.h -- POST /v1/pouches/{pouchId}/operations (op 1, decisions §5.3) as plain
// structs, each described once: the request (its strict schema, the decoder: json/described.h;
// the fuzz target tests/fuzz/fuzz_json_schema.cpp validates against it), the answer, and what
// the commit's statements (sql_commit.h) take and return. An op travels to the database as it
// came, plus what the commit decided: the applied ops go column by column (db::Columns, one
// binary array parameter per field), read there with unnest under the same names
// (tests/unit/sync_commit_types_test.cpp holds the SQL's column lists to these structs).
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/db/query.h"
#include "common/http/router.h"
#include "common/json/described.h"

namespace pouch::sync {

namespace js = json::schema;

// ---- the request -------------------------------------------------------------------------------

// One op, with the fields and bounds of the interface table of op 1.
struct CommitOp {
    std::string type{}, artifact_id{}, revision_id{};
    std::optional<std::string> base_revision_id{}, merge_parent_id{}, name_index{}, conflict_id{};
    long long key_gen = 0;
    std::string envelope{}, signature{}, signer_member_id{};
    std::vector<std::string> blob_ids{};

    static auto json_fields() {
        return std::tuple{
            json::field("type", &CommitOp::type, js::string().min_chars(1).max_chars(32)),
            json::field("artifact_id", &CommitOp::artifact_id, js::uuid()),
            json::field("revision_id", &CommitOp::revision_id, js::uuid()),
            json::field("base_revision_id", &CommitOp::base_revision_id, js::uuid().nullable()),
            json::field("merge_parent_id", &CommitOp::merge_parent_id, js::uuid().nullable()),
            json::field("name_index", &CommitOp::name_index,
                        js::b64url().min_chars(1).max_chars(512).nullable()),
            json::field("conflict_id", &CommitOp::conflict_id, js::uuid().nullable()),
            json::field("key_gen", &CommitOp::key_gen, js::integer().min(1).max(js::kMaxSafeInt)),
            json::field("envelope", &CommitOp::envelope,
                        js::string().min_chars(1).max_chars(1048576)),
            json::field("signature", &CommitOp::signature, js::string().min_chars(1).max_chars(342)),
            json::field("signer_member_id", &CommitOp::signer_member_id, js::uuid()),
            json::field("blob_ids", &CommitOp::blob_ids,
                        js::array(js::string().check(
                                      [](std::string_view s) { return http::is_blob_id(s); },
                                      "a blob id (43 b64url characters)"))
                            .max_items(1000)
                            .distinct()),
        };
    }
};

// At most 50 ops.
struct CommitRequest {
    std::string operation_id{}, epoch{};
    std::vector<CommitOp> ops{};

    static auto json_fields() {
        return std::tuple{
            json::field("operation_id", &CommitRequest::operation_id, js::uuid()),
            json::field("epoch", &CommitRequest::epoch, js::uuid()),
            json::field("ops", &CommitRequest::ops,
                        js::array(json::schema_of<CommitOp>()).min_items(1).max_items(50)),
        };
    }
};

// ---- the answer --------------------------------------------------------------------------------

// One op's result: applied with its seq; otherwise its code and message, and for stale_base
// the current head.
struct OpResult {
    std::string status{}, artifact_id{}, revision_id{};
    std::optional<long long> seq{};
    std::optional<std::string> code{}, message{}, head_revision_id{};

    static auto json_fields() {
        return std::tuple{
            json::field("status", &OpResult::status),
            json::field("artifact_id", &OpResult::artifact_id),
            json::field("revision_id", &OpResult::revision_id),
            json::field("seq", &OpResult::seq).omit(),
            json::field("code", &OpResult::code).omit(),
            json::field("message", &OpResult::message).omit(),
            json::field("head_revision_id", &OpResult::head_revision_id).omit(),
        };
    }
};

struct CommitAnswer {
    std::vector<OpResult> results{};
    long long high_water = 0;

    static auto json_fields() {
        return std::tuple{json::field("results", &CommitAnswer::results),
                          json::field("high_water", &CommitAnswer::high_water)};
    }
};

// ---- what the statements take and return -------------------------------------------------------

// An op that applied fresh, as sql::kInsertRevisions reads it from its columns: the op's own
// fields under their names, in their order, and what the commit computed for it.
struct AppliedOp : CommitOp {
    long long seq = 0;
    std::string envelope_hash{};  // b64url BLAKE3-256 of the envelope
    long long stored_size = 0;  // bytes of envelope + signature

    static auto json_fields() {
        return std::tuple_cat(CommitOp::json_fields(),
                              std::tuple{json::field("seq", &AppliedOp::seq),
                                         json::field("envelope_hash", &AppliedOp::envelope_hash),
                                         json::field("stored_size", &AppliedOp::stored_size)});
    }
};

// The final head of an artifact the batch wrote (the batch's last op on it), as
// sql::kUpsertArtifacts reads it. name_index: the last one an op on it gave; none keeps the
// stored one.
struct ArtifactHead {
    std::string artifact_id{}, head_revision_id{};
    long long head_seq = 0;
    std::optional<std::string> name_index{};
    bool deleted = false;

    static auto json_fields() {
        return std::tuple{json::field("artifact_id", &ArtifactHead::artifact_id),
                          json::field("head_revision_id", &ArtifactHead::head_revision_id),
                          json::field("head_seq", &ArtifactHead::head_seq),
                          json::field("name_index", &ArtifactHead::name_index),
                          json::field("deleted", &ArtifactHead::deleted)};
    }
};

}  // namespace pouch::sync
