// sync_commit_types_test.cpp -- the commit's batch seam (handlers/sync/commit_types.h,
// sql_commit.h): the applied ops and artifact heads travel as ONE jsonb array each, read in SQL
// with jsonb_to_recordset under the structs' JSON names. PQdescribePrepared sees only "a jsonb
// parameter", so these tests hold the recordset's column lists to the structs' fields (a field
// renamed or added on one side only would otherwise be read as NULL), and read one batch back
// through the real statement's recordset on PostgreSQL (types, nulls, the blob id array).
#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/db/pool.h"
#include "handlers/sync/sql_commit.h"
#include "tests/unit/test_env.h"

namespace pouch::sync {
namespace {

// The column names of a recordset definition "a text, b uuid, c text[]".
std::set<std::string> record_columns(const std::string& def) {
    std::set<std::string> out;
    std::stringstream in(def);
    std::string item;
    while (std::getline(in, item, ',')) {
        std::stringstream words(item);
        std::string name;
        words >> name;
        out.insert(name);
    }
    return out;
}

template <class S>
std::set<std::string> json_names() {
    std::set<std::string> out;
    std::apply([&](const auto&... f) { (out.insert(f.name), ...); }, S::json_fields());
    return out;
}

TEST(SyncCommitTypes, TheRevisionsRecordsetReadsEveryAppliedOpFieldButNameIndex) {
    std::set<std::string> fields = json_names<AppliedOp>();
    // name_index is an artifact's, written by kUpsertArtifacts from ArtifactHead.
    ASSERT_EQ(fields.erase("name_index"), 1u);
    EXPECT_EQ(record_columns(POUCH_APPLIED_OP_RECORD), fields);
    EXPECT_NE(std::string(sql::kInsertRevisions.statement.sql).find(POUCH_APPLIED_OP_RECORD),
              std::string::npos);
}

TEST(SyncCommitTypes, TheArtifactsRecordsetReadsEveryHeadField) {
    EXPECT_EQ(record_columns(POUCH_ARTIFACT_HEAD_RECORD), json_names<ArtifactHead>());
    EXPECT_NE(std::string(sql::kUpsertArtifacts.statement.sql).find(POUCH_ARTIFACT_HEAD_RECORD),
              std::string::npos);
}

TEST(SyncCommitTypes, AnAppliedOpReadsBackThroughTheRecordsetAsSent) {
    REQUIRE_DB();
    db::Conn c(url);
    ASSERT_TRUE(c.ensure_connected()) << c.last_error();
    AppliedOp a;
    a.type = "put";
    a.artifact_id = "00000000-0000-4000-8000-00000000000a";
    a.revision_id = "00000000-0000-4000-8000-00000000000b";
    a.merge_parent_id = "00000000-0000-4000-8000-00000000000c";
    a.name_index = "bmFtZQ";
    a.key_gen = 7;
    a.envelope = "ZW52ZWxvcGU";
    a.signature = "c2ln";
    a.signer_member_id = "00000000-0000-4000-8000-00000000000d";
    a.blob_ids = {std::string(43, 'A'), std::string(43, 'B')};
    a.seq = 42;
    a.envelope_hash = "aGFzaA";
    a.stored_size = 15;
    db::Statement read{"t_applied_ops",
                       "SELECT o.type, o.artifact_id, o.revision_id, o.base_revision_id,"
                       " o.merge_parent_id, o.conflict_id, o.key_gen, o.envelope, o.signature,"
                       " o.signer_member_id, array_to_json(o.blob_ids)::text, o.seq,"
                       " o.envelope_hash, o.stored_size"
                       "  FROM jsonb_to_recordset($1::jsonb) AS o(" POUCH_APPLIED_OP_RECORD ")"};
    db::Result r = c.exec(read, {json::to_json(std::vector<AppliedOp>{a})});
    ASSERT_EQ(r.rows(), 1);
    EXPECT_EQ(r.text(0, 0), "put");
    EXPECT_EQ(r.text(0, 1), a.artifact_id);
    EXPECT_EQ(r.text(0, 2), a.revision_id);
    EXPECT_TRUE(r.is_null(0, 3));
    EXPECT_EQ(r.text(0, 4), *a.merge_parent_id);
    EXPECT_TRUE(r.is_null(0, 5));
    EXPECT_EQ(r.text(0, 6), "7");
    EXPECT_EQ(r.text(0, 7), a.envelope);
    EXPECT_EQ(r.text(0, 8), a.signature);
    EXPECT_EQ(r.text(0, 9), a.signer_member_id);
    EXPECT_EQ(r.text(0, 10), "[\"" + a.blob_ids[0] + "\",\"" + a.blob_ids[1] + "\"]");
    EXPECT_EQ(r.text(0, 11), "42");
    EXPECT_EQ(r.text(0, 12), a.envelope_hash);
    EXPECT_EQ(r.text(0, 13), "15");
}

}  // namespace
}  // namespace pouch::sync
