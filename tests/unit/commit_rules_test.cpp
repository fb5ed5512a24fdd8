// commit_rules_test.cpp -- the per-op decision of a commit (common/rules/commit.h) row by row
// against decisions §5.3: each result, the order in which the checks win when several fail,
// and the state an applied op leaves for the ops after it in one batch.
#include <gtest/gtest.h>

#include <string>

#include "common/rules/commit.h"

namespace pouch::rules {
namespace {

const std::string kMember = "m-web";
const std::string kDevice = "m-device";
const std::string kArt = "a-1";      // an existing artifact, head r-1 (seq 1)
const std::string kGone = "a-gone";  // a deleted one, head its tombstone r-t (seq 2)
const std::string kBlob = "b-1";

PouchState web_state() {
    PouchState s;
    s.key_gen = 3;
    s.high_water = 2;
    s.limit_bytes = 1000;
    s.used_bytes = 900;
    s.active_members = {kMember};
    s.blobs = {kBlob};
    s.revisions["r-1"] = {kArt, "h-1", 1};
    s.revisions["r-t"] = {kGone, "h-t", 2};
    s.heads[kArt] = "r-1";
    s.heads[kGone] = "r-t";
    return s;
}

CommitOp put(std::string artifact, std::string revision, std::optional<std::string> base) {
    CommitOp op;
    op.type = "put";
    op.artifact_id = std::move(artifact);
    op.revision_id = std::move(revision);
    op.base = std::move(base);
    op.envelope_hash = "h-" + op.revision_id;
    op.signer = kMember;
    op.key_gen = 3;
    op.stored_size = 10;
    return op;
}

std::string outcome(const Decision& d) {
    std::string s = status_name(d.status);
    if (d.status == Decision::Status::applied) return s + ":" + std::to_string(d.seq) + (d.fresh ? "" : ":stored");
    return s + ":" + d.code + (d.head_revision_id.empty() ? "" : ":" + d.head_revision_id);
}

std::string decide_one(CommitOp op, PouchState s = web_state()) { return outcome(decide(op, s)); }

TEST(CommitRules, EachResultOfTheDecisionsTable) {
    EXPECT_EQ(decide_one(put("a-new", "r-new", std::nullopt)), "applied:3");
    EXPECT_EQ(decide_one(put(kArt, "r-2", "r-1")), "applied:3");
    CommitOp retry = put(kArt, "r-1", std::nullopt);
    retry.envelope_hash = "h-1";
    EXPECT_EQ(decide_one(retry), "applied:1:stored");
    EXPECT_EQ(decide_one(put(kArt, "r-2", "r-old")), "conflict:stale_base:r-1");
    EXPECT_EQ(decide_one(put(kArt, "r-2", std::nullopt)), "conflict:artifact_exists:r-1");
    EXPECT_EQ(decide_one(put("a-new", "r-2", "r-1")), "rejected:not_found");
    EXPECT_EQ(decide_one(put(kArt, "r-t", "r-1")), "rejected:revision_exists");
    CommitOp gen = put("a-new", "r-2", std::nullopt);
    gen.key_gen = 2;
    EXPECT_EQ(decide_one(gen), "rejected:stale_key_gen");
    CommitOp stranger = put("a-new", "r-2", std::nullopt);
    stranger.signer = "m-removed";
    EXPECT_EQ(decide_one(stranger), "rejected:unknown_member");
    CommitOp blob = put("a-new", "r-2", std::nullopt);
    blob.blob_ids = {kBlob, "b-missing"};
    EXPECT_EQ(decide_one(blob), "rejected:missing_blob");
    CommitOp big = put("a-new", "r-2", std::nullopt);
    big.stored_size = 101;
    EXPECT_EQ(decide_one(big), "rejected:quota_exceeded");
    CommitOp bad = put("a-new", "r-2", std::nullopt);
    bad.type = "move";
    EXPECT_EQ(decide_one(bad), "rejected:invalid_type");
}

TEST(CommitRules, CliSignerMustBeItsOwnMember) {
    PouchState s = web_state();
    s.cli = true;
    s.caller_member = kDevice;
    CommitOp op = put("a-new", "r-2", std::nullopt);
    EXPECT_EQ(decide_one(op, s), "rejected:signer_mismatch");
    op.signer = kDevice;  // not in active_members: a CLI's own member is checked by auth
    EXPECT_EQ(decide_one(op, s), "applied:3");
}

TEST(CommitRules, DeleteNeedsTheHeadAndAPutOnATombstoneRestores) {
    CommitOp del = put(kArt, "r-2", "r-1");
    del.type = "delete";
    EXPECT_EQ(decide_one(del), "applied:3");
    del.base = std::nullopt;
    EXPECT_EQ(decide_one(del), "conflict:stale_base:r-1");
    CommitOp missing = del;
    missing.artifact_id = "a-new";
    EXPECT_EQ(decide_one(missing), "rejected:not_found");
    EXPECT_EQ(decide_one(put(kGone, "r-2", "r-t")), "applied:3");
}

TEST(CommitRules, MergeParentMustBeARevisionOfTheSameArtifact) {
    CommitOp op = put(kArt, "r-2", "r-1");
    op.merge_parent = "r-t";  // a revision of another artifact
    EXPECT_EQ(decide_one(op), "rejected:not_found");
    op.merge_parent = "r-unknown";
    EXPECT_EQ(decide_one(op), "rejected:not_found");
    op.merge_parent = "r-1";
    EXPECT_EQ(decide_one(op), "applied:3");
}

TEST(CommitRules, QuotaPassesAtTheLimitExactly) {
    CommitOp op = put("a-new", "r-2", std::nullopt);
    op.stored_size = 100;  // 900 + 100 = the limit
    EXPECT_EQ(decide_one(op), "applied:3");
}

// decisions §5.3: "the first that fails is the op's result", in the decided order.
TEST(CommitRules, ChecksWinInTheDecidedOrder) {
    CommitOp all = put("a-new", "r-t", "r-1");  // revision exists elsewhere, artifact missing
    all.type = "move";
    all.signer = "m-removed";
    all.key_gen = 9;
    all.blob_ids = {"b-missing"};
    all.stored_size = 5000;
    EXPECT_EQ(decide_one(all), "rejected:invalid_type");
    all.type = "put";
    EXPECT_EQ(decide_one(all), "rejected:unknown_member");
    all.signer = kMember;
    EXPECT_EQ(decide_one(all), "rejected:stale_key_gen");
    all.key_gen = 3;
    EXPECT_EQ(decide_one(all), "rejected:missing_blob");
    all.blob_ids = {};
    EXPECT_EQ(decide_one(all), "rejected:revision_exists");
    all.revision_id = "r-2";
    EXPECT_EQ(decide_one(all), "rejected:not_found");
    all.artifact_id = kArt;
    all.base = "r-old";
    EXPECT_EQ(decide_one(all), "conflict:stale_base:r-1");
    all.base = "r-1";
    EXPECT_EQ(decide_one(all), "rejected:quota_exceeded");
    all.stored_size = 10;
    EXPECT_EQ(decide_one(all), "applied:3");
}

// A stored identical revision answers before any other check: a retry after the signer was
// removed or the keys rotated still gets its original seq.
TEST(CommitRules, AnIdenticalStoredRevisionAnswersBeforeTheOtherChecks) {
    CommitOp retry = put(kArt, "r-1", std::nullopt);
    retry.envelope_hash = "h-1";
    retry.signer = "m-removed";
    retry.key_gen = 1;
    retry.blob_ids = {"b-missing"};
    EXPECT_EQ(decide_one(retry), "applied:1:stored");
    retry.artifact_id = "a-other";  // same id, another artifact: a different revision
    EXPECT_EQ(decide_one(retry), "rejected:unknown_member");
}

TEST(CommitRules, LaterOpsOfABatchBuildOnEarlierOnes) {
    PouchState s = web_state();
    EXPECT_EQ(outcome(decide(put("a-new", "r-2", std::nullopt), s)), "applied:3");
    EXPECT_EQ(outcome(decide(put("a-new", "r-3", "r-2"), s)), "applied:4");
    EXPECT_EQ(outcome(decide(put("a-new", "r-4", "r-2"), s)), "conflict:stale_base:r-3");
    CommitOp again = put("a-new", "r-2", std::nullopt);  // the first op once more
    EXPECT_EQ(outcome(decide(again, s)), "applied:3:stored");
    CommitOp merge = put("a-new", "r-5", "r-3");
    merge.merge_parent = "r-2";
    EXPECT_EQ(outcome(decide(merge, s)), "applied:5");
    EXPECT_EQ(s.high_water, 5);
    EXPECT_EQ(s.used_bytes, 930);
    EXPECT_EQ(s.heads.at("a-new"), "r-5");
}

TEST(CommitRules, RefusedOpsChangeNothing) {
    PouchState s = web_state();
    CommitOp big = put("a-new", "r-2", std::nullopt);
    big.stored_size = 101;
    decide(big, s);
    decide(put(kArt, "r-3", "r-old"), s);
    EXPECT_EQ(s.high_water, 2);
    EXPECT_EQ(s.used_bytes, 900);
    EXPECT_EQ(s.heads.count("a-new"), 0u);
    EXPECT_EQ(s.revisions.count("r-2"), 0u);
    // The quota counts what the batch applied before: 900 + 60 + 41 > 1000.
    CommitOp a = put("a-x", "r-x", std::nullopt);
    a.stored_size = 60;
    EXPECT_EQ(outcome(decide(a, s)), "applied:3");
    CommitOp b = put("a-y", "r-y", std::nullopt);
    b.stored_size = 41;
    EXPECT_EQ(outcome(decide(b, s)), "rejected:quota_exceeded");
}

}  // namespace
}  // namespace pouch::rules
