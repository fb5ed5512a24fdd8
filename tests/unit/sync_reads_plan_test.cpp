// sync_reads_plan_test.cpp -- the read-path statements of handlers/sync/sql_reads.h against
// a real PostgreSQL (POUCH_TEST_DATABASE_URL; skipped when unset) holding 5,000 artifacts:
// every page is an index range scan (keyset row comparison in the Index Cond, no Seq Scan, no
// OFFSET), for custom and generic plans alike, and a deep page touches no more buffers than
// the first one — page N costs what page 1 costs, shown by the plan rather than by timing.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include <cstdlib>
#include <memory>
#include <string>

#include <rapidjson/document.h>

#include "common/db/pool.h"
#include "handlers/sync/sql_reads.h"

namespace {

using pouch::db::Conn;

constexpr int kArtifacts = 5000;

std::string random_uuid(Conn& c) {
    return c.exec_sql("SELECT gen_random_uuid()").text(0, 0);
}

// One account with one pouch of kArtifacts artifacts (every tenth deleted), each with one
// revision, plus one artifact with kArtifacts revisions; built once for the suite and removed
// after it.
class ReadPlans : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        url_ = pouch::testing::env_url("POUCH_TEST_DATABASE_URL");
        if (url_.empty()) return;
        c_ = std::make_unique<Conn>(url_);
        ASSERT_TRUE(c_->ensure_connected()) << c_->last_error();
        Conn& c = *c_;
        user_ = random_uuid(c);
        pouch_ = random_uuid(c);
        history_artifact_ = random_uuid(c);
        const std::string u = "'" + user_ + "'", p = "'" + pouch_ + "'";
        c.exec_sql("BEGIN");
        c.exec_sql("INSERT INTO users (id, email, password_hash) VALUES (" + u + ", 'plan-" +
                   user_ + "@example.com', 'x')");
        c.exec_sql(
            "INSERT INTO storage_accounts (id, owner_user_id, plan_id)"
            " SELECT " +
            u + ", " + u + ", id FROM plans WHERE is_default");
        c.exec_sql("INSERT INTO members (id, account_id, kind) VALUES (" + u + ", " + u +
                   ", 'web')");
        c.exec_sql("INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES (" + p + ", " + u +
                   ", gen_random_uuid(), 1)");
        // Artifact g has revision g at seq g; the history artifact's revisions follow.
        c.exec_sql(
            "INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, key_gen, envelope,"
            " envelope_hash, signature, signer_member_id, stored_size, origin)"
            " SELECT " +
            p + ", md5(" + p + " || 'r' || g)::uuid, md5(" + p +
            " || 'a' || g)::uuid,"
            " g, 'put', 1, 'envelope', 'h', 's', " +
            u +
            ", 9, 'web'"
            " FROM generate_series(1, " +
            std::to_string(kArtifacts) + ") g");
        c.exec_sql(
            "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq, deleted)"
            " SELECT " +
            p + ", md5(" + p + " || 'a' || g)::uuid, md5(" + p +
            " || 'r' || g)::uuid,"
            " g, g % 10 = 0 FROM generate_series(1, " +
            std::to_string(kArtifacts) + ") g");
        c.exec_sql(
            "INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, key_gen, envelope,"
            " envelope_hash, signature, signer_member_id, stored_size, origin)"
            " SELECT " +
            p + ", gen_random_uuid(), '" + history_artifact_ + "', " + std::to_string(kArtifacts) +
            " + g, 'put', 1, 'envelope', 'h', 's', " + u + ", 9, 'web' FROM generate_series(1, " +
            std::to_string(kArtifacts) + ") g");
        c.exec_sql(
            "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq)"
            " SELECT " +
            p + ", artifact_id, id, seq FROM revisions WHERE pouch_id = " + p +
            " AND artifact_id = '" + history_artifact_ + "' ORDER BY seq DESC LIMIT 1");
        c.exec_sql("COMMIT");
        c.exec_sql("ANALYZE artifacts");
        c.exec_sql("ANALYZE revisions");
        // The handler's statements, prepared under their own names as the pool prepares them.
        prepare("plan_live", pouch::sync::sql::kLiveArtifactsPage.statement);
        prepare("plan_all", pouch::sync::sql::kAllArtifactsPage.statement);
        prepare("plan_revisions", pouch::sync::sql::kRevisionsPage.statement);
    }

    static void TearDownTestSuite() {
        if (!c_) return;
        c_->exec_sql("DELETE FROM pouches WHERE id = '" + pouch_ + "'");
        c_->exec_sql("DELETE FROM users WHERE id = '" + user_ + "'");
        c_.reset();
    }

    void SetUp() override {
        if (url_.empty()) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set";
    }

    static void prepare(const std::string& name, const pouch::db::Statement& st) {
        c_->exec_sql("PREPARE " + name + " AS " + st.sql);
    }

    // EXPLAIN output of an EXECUTE, as text, under plan_cache_mode `mode`.
    std::string plan(const std::string& mode, const std::string& execute) {
        c_->exec_sql("SET plan_cache_mode = " + mode);
        pouch::db::Result r = c_->exec_sql("EXPLAIN " + execute);
        std::string text;
        for (int i = 0; i < r.rows(); ++i) text += r.text(i, 0) + "\n";
        return text;
    }

    // Shared buffers (hit + read) an EXECUTE touches, from EXPLAIN (ANALYZE, BUFFERS).
    long long buffers(const std::string& execute) {
        c_->exec_sql("SET plan_cache_mode = force_generic_plan");
        pouch::db::Result r = c_->exec_sql("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + execute);
        rapidjson::Document d;
        d.Parse(r.text(0, 0).c_str());
        const auto& top = d[0]["Plan"];
        return top["Shared Hit Blocks"].GetInt64() + top["Shared Read Blocks"].GetInt64();
    }

    std::string artifacts_page(const char* stmt, long long after_seq, const std::string& after_id) {
        return std::string("EXECUTE ") + stmt + "('" + pouch_ + "', " + std::to_string(after_seq) +
               ", '" + after_id + "', 101, 4194304)";
    }

    std::string revisions_page(long long below_seq) {
        return "EXECUTE plan_revisions('" + pouch_ + "', '" + history_artifact_ + "', " +
               std::to_string(below_seq) + ", 101, 4194304)";
    }

    static inline std::string url_, user_, pouch_, history_artifact_;
    static inline std::unique_ptr<Conn> c_;
};

const std::string kNil = "00000000-0000-0000-0000-000000000000";

TEST_F(ReadPlans, LiveArtifactPagesAreKeysetRangeScansOfThePartialIndex) {
    for (const char* mode : {"force_custom_plan", "force_generic_plan"}) {
        for (long long from : {-1LL, kArtifacts * 9LL / 10}) {
            std::string p = plan(mode, artifacts_page("plan_live", from, kNil));
            EXPECT_NE(p.find("Index Scan using artifacts_keyset_live on artifacts"),
                      std::string::npos)
                << mode << " from " << from << ":\n"
                << p;
            EXPECT_NE(p.find("ROW(head_seq, id) > ROW("), std::string::npos)
                << "keyset condition not in the index scan (" << mode << "):\n"
                << p;
            EXPECT_EQ(p.find("Seq Scan"), std::string::npos) << p;
            EXPECT_EQ(p.find("Sort"), std::string::npos) << p;
        }
    }
}

TEST_F(ReadPlans, AllArtifactPagesAreKeysetRangeScansOfTheFullIndex) {
    for (const char* mode : {"force_custom_plan", "force_generic_plan"}) {
        std::string p = plan(mode, artifacts_page("plan_all", kArtifacts * 9 / 10, kNil));
        EXPECT_NE(p.find("Index Scan using artifacts_keyset on artifacts"), std::string::npos)
            << mode << ":\n"
            << p;
        EXPECT_NE(p.find("ROW(head_seq, id) > ROW("), std::string::npos) << p;
        EXPECT_EQ(p.find("Seq Scan"), std::string::npos) << p;
        EXPECT_EQ(p.find("Sort"), std::string::npos) << p;
    }
}

TEST_F(ReadPlans, RevisionPagesAreRangeScansOfTheHistoryIndex) {
    for (const char* mode : {"force_custom_plan", "force_generic_plan"}) {
        std::string p = plan(mode, revisions_page(kArtifacts + 500));
        EXPECT_NE(p.find("Index Scan using revisions_history on revisions"), std::string::npos)
            << mode << ":\n"
            << p;
        EXPECT_NE(p.find("(seq < "), std::string::npos) << p;
        EXPECT_EQ(p.find("Seq Scan"), std::string::npos) << p;
        EXPECT_EQ(p.find("Sort"), std::string::npos) << p;
    }
}

TEST_F(ReadPlans, DeepArtifactPageTouchesNoMoreBuffersThanTheFirst) {
    buffers(artifacts_page("plan_live", -1, kNil));  // warm the cache
    long long first = buffers(artifacts_page("plan_live", -1, kNil));
    long long deep = buffers(artifacts_page("plan_live", kArtifacts - 300, kNil));
    long long deep_all = buffers(artifacts_page("plan_all", kArtifacts - 300, kNil));
    EXPECT_GT(first, 0);
    EXPECT_LE(deep, first + 8) << "first " << first << ", deep " << deep;
    EXPECT_LE(deep_all, first + 8) << "first " << first << ", deep (all) " << deep_all;
}

TEST_F(ReadPlans, DeepRevisionPageTouchesNoMoreBuffersThanTheFirst) {
    long long top = kArtifacts * 2 + 1;
    buffers(revisions_page(top));
    long long first = buffers(revisions_page(top));
    long long deep = buffers(revisions_page(kArtifacts + 200));
    EXPECT_GT(first, 0);
    EXPECT_LE(deep, first + 8) << "first " << first << ", deep " << deep;
}

}  // namespace
