// sync_commit_types_test.cpp -- the commit's batch seam (handlers/sync/commit_types.h,
// sql_commit.h): the applied ops and artifact heads travel column by column (db::Columns: one
// binary array parameter per field, in the fields' order), zipped in SQL by unnest under the
// fields' names. db_statements_test holds each parameter's array type to its field's; these
// tests hold the unnest's column names to the structs' fields, in order (a field added or moved
// on one side only would otherwise be read into another column), and read batches back
// through the statement's unnest on PostgreSQL (types, NULLs, the blob id lists, non-ASCII).
#include <vector>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/db/pool.h"
#include "handlers/sync/sql_commit.h"
#include "tests/unit/test_env.h"

namespace pouch::sync {
namespace {

// The names of a column list "a, b, c", in order.
std::vector<std::string> column_names(const std::string& def) {
    std::vector<std::string> out;
    std::stringstream in(def);
    std::string item;
    while (std::getline(in, item, ',')) {
        std::stringstream words(item);
        std::string name;
        words >> name;
        out.push_back(name);
    }
    return out;
}

template <class S>
std::vector<std::string> json_names() {
    std::vector<std::string> out;
    std::apply([&](const auto&... f) { (out.push_back(f.name), ...); }, S::json_fields());
    return out;
}

TEST(SyncCommitTypes, TheRevisionsColumnsAreEveryAppliedOpFieldInOrder) {
    EXPECT_EQ(column_names(POUCH_APPLIED_OP_COLUMNS), json_names<AppliedOp>());
    EXPECT_NE(std::string(sql::kInsertRevisions.statement.sql).find(POUCH_APPLIED_OP_COLUMNS),
              std::string::npos);
    // pouch_id, origin, device_id, epoch, then one parameter per field.
    EXPECT_EQ(sql::kInsertRevisions.shape().params.size(), 4 + json_names<AppliedOp>().size());
    EXPECT_EQ(sql::kInsertRevisions.formats(),
              (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(SyncCommitTypes, TheArtifactsColumnsAreEveryHeadFieldInOrder) {
    EXPECT_EQ(column_names(POUCH_ARTIFACT_HEAD_COLUMNS), json_names<ArtifactHead>());
    EXPECT_NE(std::string(sql::kUpsertArtifacts.statement.sql).find(POUCH_ARTIFACT_HEAD_COLUMNS),
              std::string::npos);
    EXPECT_EQ(sql::kUpsertArtifacts.formats(), (std::vector<int>{0, 1, 1, 1, 1, 1}));
}

struct Ops {
    db::Columns<AppliedOp> ops;
    static auto db_params() { return std::tuple{db::col("ops", &Ops::ops)}; }
};

// The unnest of kInsertRevisions, its values as text. A statement of this test only: made in
// the test and taken out of the registry after (db_statements_test checks the sources' ones).
struct ReadOps {
    db::Query<Ops> q;
    ReadOps();
    ~ReadOps() {
        std::erase_if(db::registry(), [&](const db::Shape* s) { return s == &q.shape(); });
    }
};
ReadOps::ReadOps()
    : q{"t_applied_ops",
    "SELECT o.type, o.artifact_id::uuid, o.revision_id::uuid, o.base_revision_id::uuid,"
    " o.merge_parent_id::uuid, o.name_index, o.conflict_id::uuid, o.key_gen, o.envelope,"
    " o.signature, o.signer_member_id::uuid, array_to_json(o.blob_ids::text[])::text, o.seq,"
    " o.envelope_hash, o.stored_size"
    "  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
    "              $7::text[], $8::int8[], $9::text[], $10::text[], $11::text[], $12::text[],"
    "              $13::int8[], $14::text[], $15::int8[]) AS o(" POUCH_APPLIED_OP_COLUMNS ")"} {}

TEST(SyncCommitTypes, AppliedOpsReadBackThroughTheColumnsAsSent) {
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
    AppliedOp b;  // every optional NULL, no blobs, a non-ASCII envelope, a large seq
    b.type = "delete";
    b.artifact_id = "00000000-0000-4000-8000-00000000001a";
    b.revision_id = "00000000-0000-4000-8000-00000000001b";
    b.base_revision_id = "00000000-0000-4000-8000-00000000000b";
    b.key_gen = 9007199254740991;
    b.envelope = "\"\xF0\x9F\x98\x80\" {x,y} \\";
    b.signature = "s";
    b.signer_member_id = "00000000-0000-4000-8000-00000000000d";
    b.seq = 4294967297;
    b.envelope_hash = "h";
    b.stored_size = 0;
    ReadOps read;
    const db::Query<Ops>& q = read.q;
    db::Result r = c.exec(q.statement, q.params({.ops = {{a, b}}}), q.formats());
    ASSERT_EQ(r.rows(), 2);
    EXPECT_EQ(r.text(0, 0), "put");
    EXPECT_EQ(r.text(0, 1), a.artifact_id);
    EXPECT_EQ(r.text(0, 2), a.revision_id);
    EXPECT_TRUE(r.is_null(0, 3));
    EXPECT_EQ(r.text(0, 4), *a.merge_parent_id);
    EXPECT_EQ(r.text(0, 5), *a.name_index);
    EXPECT_TRUE(r.is_null(0, 6));
    EXPECT_EQ(r.text(0, 7), "7");
    EXPECT_EQ(r.text(0, 8), a.envelope);
    EXPECT_EQ(r.text(0, 9), a.signature);
    EXPECT_EQ(r.text(0, 10), a.signer_member_id);
    EXPECT_EQ(r.text(0, 11), "[\"" + a.blob_ids[0] + "\",\"" + a.blob_ids[1] + "\"]");
    EXPECT_EQ(r.text(0, 12), "42");
    EXPECT_EQ(r.text(0, 13), a.envelope_hash);
    EXPECT_EQ(r.text(0, 14), "15");

    EXPECT_EQ(r.text(1, 0), "delete");
    EXPECT_EQ(r.text(1, 3), *b.base_revision_id);
    EXPECT_TRUE(r.is_null(1, 4));
    EXPECT_TRUE(r.is_null(1, 5));
    EXPECT_TRUE(r.is_null(1, 6));
    EXPECT_EQ(r.text(1, 7), "9007199254740991");
    EXPECT_EQ(r.text(1, 8), b.envelope);
    EXPECT_EQ(r.text(1, 11), "[]");
    EXPECT_EQ(r.text(1, 12), "4294967297");
    EXPECT_EQ(r.text(1, 14), "0");
}

TEST(SyncCommitTypes, AnEmptyBatchReadsAsNoRows) {
    REQUIRE_DB();
    db::Conn c(url);
    ASSERT_TRUE(c.ensure_connected()) << c.last_error();
    ReadOps read;
    db::Result r = c.exec(read.q.statement, read.q.params({}), read.q.formats());
    EXPECT_EQ(r.rows(), 0);
}

}  // namespace
}  // namespace pouch::sync
