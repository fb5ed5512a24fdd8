// db_migrate_test.cpp -- `pouchctl migrate` and `pouchctl user role` run as the operator runs
// them (the built binary next to unit_tests), each test in a fresh schema of the test
// database (POUCH_TEST_DATABASE_URL, skipped when unset) selected through search_path.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "common/db/pool.h"

namespace fs = std::filesystem;
using pouch::db::Conn;
using pouch::db::Statement;

namespace {

struct CmdResult {
    int status;
    std::string out;
};

fs::path pouchctl_path() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path() / "pouchctl";
}

fs::path sql_dir() {
    std::error_code ec;
    fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    for (int up = 0; up < 4 && !ec; ++up) {
        dir = dir.parent_path();
        if (fs::is_regular_file(dir / "sql" / "001_init.sql")) return dir / "sql";
    }
    return "sql";
}

int count_sql_files() {
    int n = 0;
    for (const auto& e : fs::directory_iterator(sql_dir()))
        if (e.path().extension() == ".sql") ++n;
    return n;
}

// The URL with search_path set to `schema`, for both URI and key=value conninfo forms.
std::string with_schema(const std::string& url, const std::string& schema) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0)
        return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
               schema;
    return url + " options='-csearch_path=" + schema + "'";
}

// A fresh schema, dropped with everything in it at the end of the test.
class DbMigrate : public ::testing::Test {
  protected:
    void SetUp() override {
        const char* u = std::getenv("POUCH_TEST_DATABASE_URL");
        if (!u || !*u) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set";
        if (!fs::exists(pouchctl_path())) GTEST_SKIP() << "pouchctl is not built";
        base_url_ = u;
        std::random_device rd;
        schema_ = "mig_test_" + std::to_string(rd()) + std::to_string(rd() % 1000);
        admin_ = std::make_unique<Conn>(base_url_);
        ASSERT_TRUE(admin_->ensure_connected()) << admin_->last_error();
        try {
            admin_->exec_sql("CREATE SCHEMA " + schema_);
        } catch (const pouch::Error& e) {
            admin_.reset();
            GTEST_SKIP() << "cannot create a scratch schema: " << e.what();
        }
        url_ = with_schema(base_url_, schema_);
    }
    void TearDown() override {
        if (admin_) admin_->exec_sql("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    }

    CmdResult run_pouchctl(const std::string& args) {
        std::string cmd = "POUCH_DATABASE_URL='" + url_ + "' '" + pouchctl_path().string() + "' " +
                          args + " 2>&1";
        CmdResult r{-1, {}};
        FILE* p = ::popen(cmd.c_str(), "r");
        if (!p) return r;
        char buf[512];
        while (size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
        int st = ::pclose(p);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        return r;
    }

    std::string scalar(const std::string& sql) {
        return admin_->exec_sql("SET search_path TO " + schema_ + "; " + sql).text(0, 0);
    }

    std::string base_url_, url_, schema_;
    std::unique_ptr<Conn> admin_;
};

int occurrences(const std::string& hay, const std::string& needle) {
    int n = 0;
    for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
    return n;
}

}  // namespace

TEST_F(DbMigrate, AppliesEveryFileInOrderThenASecondRunIsANoOp) {
    const std::string files = std::to_string(count_sql_files());
    CmdResult first = run_pouchctl("migrate --dir '" + sql_dir().string() + "'");
    ASSERT_EQ(first.status, 0) << first.out;
    EXPECT_EQ(first.out.find("applied 001_init\napplied 002_default_plan\n"), 0u) << first.out;
    EXPECT_EQ(scalar("SELECT count(*) FROM schema_migrations"), files);
    EXPECT_EQ(scalar("SELECT slug || ' ' || pouch_limit || ' ' || storage_bytes FROM plans "
                     "WHERE is_default"),
              "free 5 1073741824");
    // 014: envelopes (ciphertext) are stored out of line without a compression attempt.
    EXPECT_EQ(scalar("SELECT attstorage FROM pg_attribute WHERE attrelid = 'revisions'::regclass "
                     "AND attname = 'envelope'"),
              "e");

    CmdResult second = run_pouchctl("migrate --dir '" + sql_dir().string() + "'");
    ASSERT_EQ(second.status, 0) << second.out;
    EXPECT_EQ(second.out, "up to date (" + files + " migrations)\n");
    EXPECT_EQ(scalar("SELECT count(*) FROM schema_migrations"), files);
    EXPECT_EQ(scalar("SELECT count(*) FROM plans"), "1");
}

TEST_F(DbMigrate, FindsTheSqlDirectoryWithoutDir) {
    CmdResult r = run_pouchctl("migrate");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(scalar("SELECT count(*) FROM schema_migrations"), std::to_string(count_sql_files()));
}

TEST_F(DbMigrate, ConcurrentRunsApplyEachFileOnce) {
    const std::string cmd = "POUCH_DATABASE_URL='" + url_ + "' '" + pouchctl_path().string() +
                            "' migrate --dir '" + sql_dir().string() + "' 2>&1";
    FILE* a = ::popen(cmd.c_str(), "r");
    FILE* b = ::popen(cmd.c_str(), "r");
    ASSERT_TRUE(a && b);
    std::string out;
    char buf[512];
    for (FILE* p : {a, b})
        while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    EXPECT_EQ(::pclose(a), 0) << out;
    EXPECT_EQ(::pclose(b), 0) << out;
    EXPECT_EQ(occurrences(out, "applied 001_init\n"), 1) << out;
    EXPECT_EQ(scalar("SELECT count(*) FROM schema_migrations"), std::to_string(count_sql_files()));
}

TEST_F(DbMigrate, UnreachableDatabaseFailsWithExitCode1) {
    url_ = "postgresql://pouch@127.0.0.1:1/pouch?connect_timeout=1";
    CmdResult r = run_pouchctl("migrate --dir '" + sql_dir().string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("cannot connect to the database"), std::string::npos) << r.out;
}

TEST_F(DbMigrate, UserRoleSetsTheRoleAndWritesTheAuditRecord) {
    ASSERT_EQ(run_pouchctl("migrate --dir '" + sql_dir().string() + "'").status, 0);
    scalar(
        "INSERT INTO users (email, password_hash) VALUES ('ops@example.com', 'h') "
        "RETURNING id");
    const std::string id = scalar("SELECT id FROM users WHERE email = 'ops@example.com'");

    CmdResult r = run_pouchctl("user role ' Ops@Example.com ' admin --reason 'first admin'");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(scalar("SELECT role FROM users WHERE id = '" + id + "'"), "admin");
    EXPECT_EQ(
        scalar("SELECT concat_ws('|', coalesce(actor_user_id::text, 'null'), action, "
               "target, before::text, after::text, reason, "
               "coalesce(request_id, 'null')) FROM audit_log"),
        "null|user.role|" + id + "|{\"role\": \"user\"}|{\"role\": \"admin\"}|first admin|null");
}

TEST_F(DbMigrate, UserRoleRefusesToDemoteTheLastAdmin) {
    ASSERT_EQ(run_pouchctl("migrate --dir '" + sql_dir().string() + "'").status, 0);
    scalar(
        "INSERT INTO users (email, password_hash, role) VALUES ('a@example.com', 'h', "
        "'admin'), ('b@example.com', 'h', 'user') RETURNING 1");

    CmdResult refused = run_pouchctl("user role a@example.com user");
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(refused.out, "pouchctl user: refusing to demote the last admin\n");
    EXPECT_EQ(scalar("SELECT role FROM users WHERE email = 'a@example.com'"), "admin");
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_log"), "0");

    ASSERT_EQ(run_pouchctl("user role b@example.com admin").status, 0);
    ASSERT_EQ(run_pouchctl("user role a@example.com support").status, 0);
    EXPECT_EQ(scalar("SELECT role FROM users WHERE email = 'a@example.com'"), "support");
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_log"), "2");
}

TEST_F(DbMigrate, UserRoleRejectsAnUnknownRoleAndAnUnknownEmail) {
    ASSERT_EQ(run_pouchctl("migrate --dir '" + sql_dir().string() + "'").status, 0);
    EXPECT_EQ(run_pouchctl("user role a@example.com owner").status, 2);
    CmdResult r = run_pouchctl("user role nobody@example.com admin");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "pouchctl user: no user with email nobody@example.com\n");
}
