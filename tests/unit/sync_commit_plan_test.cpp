// sync_commit_plan_test.cpp -- the lookups by id that a commit's state read runs for its ops
// (handlers/sync/sql_commit.h) and the head fetch of an artifacts page (sql_reads.h) use the
// primary key, with no Filter, even where PostgreSQL has no statistics for the tables yet: a
// fresh install before its first autoanalyze, when the handlers' prepared statements settle
// on the generic plan they then keep. Each test plans against temporary copies of revisions
// and artifacts (same columns and indexes, never analyzed; pg_temp comes first in the search
// path, so the statements' unqualified names resolve to them), empty and then holding 5,000
// revisions of one pouch. With revisions_history led by pouch_id (before
// sql/007_revisions_history_order.sql) the revision lookup planned as Index Cond pouch_id,
// Filter id: every revision of the pouch read for each op; statistics from before a pouch
// grew did the same to the head lookup (see the last test). Real PostgreSQL at
// POUCH_TEST_DATABASE_URL; skipped when unset.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include <memory>
#include <string>

#include "common/db/pool.h"
#include "handlers/sync/sql_commit.h"
#include "handlers/sync/sql_reads.h"

namespace {

using pouch::db::Conn;

class CommitPlans : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string url = pouch::testing::env_url("POUCH_TEST_DATABASE_URL");
        if (url.empty()) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set";
        c_ = std::make_unique<Conn>(url);
        ASSERT_TRUE(c_->ensure_connected()) << c_->last_error();
        c_->exec_sql("CREATE TEMP TABLE revisions (LIKE public.revisions INCLUDING ALL)");
        c_->exec_sql("CREATE TEMP TABLE artifacts (LIKE public.artifacts INCLUDING ALL)");
        pouch_ = c_->exec_sql("SELECT gen_random_uuid()").text(0, 0);
        prepare("plan_state", pouch::sync::sql::kCommitState.statement);
        prepare("plan_page", pouch::sync::sql::kLiveArtifactsPage.statement);
    }

    void prepare(const std::string& name, const pouch::db::Statement& st) {
        c_->exec_sql("PREPARE " + name + " AS " + st.sql);
    }

    // `n` artifacts, one revision each and seq = g for g in 1..n. `pouch_of` is an SQL
    // expression of g naming each row's pouch, `salt` one making the ids distinct per pouch.
    void insert_rows(int n, const std::string& pouch_of, const std::string& salt) {
        const std::string rev = "md5(" + salt + " || 'r' || g)::uuid";
        const std::string art = "md5(" + salt + " || 'a' || g)::uuid";
        const std::string rows = " FROM generate_series(1, " + std::to_string(n) + ") g";
        std::string revisions =
            "INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, key_gen, envelope,"
            " envelope_hash, signature, signer_member_id, stored_size, origin) SELECT ";
        revisions += pouch_of + ", " + rev + ", " + art + ", g, 'put', 1, 'envelope', 'h', 's',";
        revisions += " gen_random_uuid(), 9, 'web'" + rows;
        std::string artifacts =
            "INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq) SELECT ";
        artifacts += pouch_of + ", " + art + ", " + rev + ", g" + rows;
        c_->exec_sql(revisions);
        c_->exec_sql(artifacts);
    }

    // 5,000 artifacts of one pouch, one revision each; the tables stay unanalyzed.
    void fill() {
        const std::string p = "'" + pouch_ + "'";
        insert_rows(5000, p, p);
        ASSERT_EQ(
            c_->exec_sql("SELECT reltuples FROM pg_class WHERE oid = 'pg_temp.revisions'::regclass")
                .text(0, 0),
            "-1")
            << "the copy must be one PostgreSQL has no statistics for";
    }

    std::string plan(const std::string& mode, const std::string& execute) {
        c_->exec_sql("SET plan_cache_mode = " + mode);
        pouch::db::Result r = c_->exec_sql("EXPLAIN " + execute);
        std::string text;
        for (int i = 0; i < r.rows(); ++i) text += r.text(i, 0) + "\n";
        return text;
    }

    // The plan's node on `table` and the lines under it up to the next node.
    static std::string node_on(const std::string& plan, const std::string& table) {
        size_t at = plan.find(" on " + table + " ");
        if (at == std::string::npos) at = plan.find(" on " + table + "\n");
        if (at == std::string::npos) return "";
        size_t start = plan.rfind('\n', at) + 1;
        size_t end = plan.find("->", at);
        return plan.substr(start, end == std::string::npos ? std::string::npos : end - start);
    }

    void expect_primary_key(const std::string& execute, const std::string& table) {
        for (const char* mode : {"force_custom_plan", "force_generic_plan"}) {
            std::string p = plan(mode, execute);
            std::string node = node_on(p, table);
            EXPECT_NE(node.find("using " + table + "_pkey on " + table), std::string::npos)
                << mode << ":\n"
                << p;
            EXPECT_EQ(node.find("Filter"), std::string::npos) << mode << ":\n" << p;
        }
    }

    void expect_all_by_primary_key() {
        const std::string id = "'00000000-0000-4000-8000-000000000001'";
        const std::string ids =
            "'{00000000-0000-4000-8000-000000000001,00000000-0000-4000-8000-000000000002}'";
        // The batch's one state read: its revisions and artifacts by primary key.
        const std::string state = "EXECUTE plan_state('" + pouch_ + "', " + ids + ", " + ids +
                                  ", gen_random_uuid(), '{}', '{}', gen_random_uuid())";
        expect_primary_key(state, "revisions");
        expect_primary_key(state, "artifacts");
        // The page's LATERAL fetch of each artifact's head revision.
        expect_primary_key("EXECUTE plan_page('" + pouch_ + "', 0, " + id + ", 101, 4194304)",
                           "revisions");
    }

    // Statistics from before the pouch grew: 3 pouches of 1,000 artifacts (and revisions)
    // each, analyzed; in them pouch_'s id is no common value and the common ones cover every
    // row, so a custom plan estimates pouch_ at one artifact. Then
    // pouch_ gets 5,000 that the statistics have not seen, as in a first sync of a new
    // pouch between two autoanalyzes.
    void fill_after_statistics_from_before_the_pouch_grew() {
        insert_rows(3000, "md5('p' || g % 3)::uuid", "''");
        c_->exec_sql("ANALYZE pg_temp.revisions");
        c_->exec_sql("ANALYZE pg_temp.artifacts");
        const std::string p = "'" + pouch_ + "'";
        insert_rows(5000, p, p);
    }

    std::unique_ptr<Conn> c_;
    std::string pouch_;
};

TEST_F(CommitPlans, LookupsByIdUseThePrimaryKeyOnTablesWithoutStatistics) {
    expect_all_by_primary_key();
}

TEST_F(CommitPlans, LookupsByIdUseThePrimaryKeyOnAFullPouchNotYetAnalyzed) {
    fill();
    expect_all_by_primary_key();
}

// Before the pouch id was hidden from the estimator ((SELECT $1) in kCommitState), these
// statistics made the head lookup Index Cond pouch_id, Filter id on artifacts_head_revision
// (make bench: 2 ms per op at 4,000 artifacts).
TEST_F(CommitPlans, LookupsByIdUseThePrimaryKeyWithStatisticsFromBeforeThePouchGrew) {
    fill_after_statistics_from_before_the_pouch_grew();
    expect_all_by_primary_key();
}

}  // namespace
