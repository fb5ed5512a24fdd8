// db_pool_test.cpp -- common/db against a real PostgreSQL (POUCH_TEST_DATABASE_URL; skipped
// when unset): named statements, NULLs, SQLSTATEs, the pool bound, rollback on release,
// recovery after the server kills our backends, and 503 when the database is unreachable.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "common/db/pool.h"
#include "common/http/error.h"

using namespace std::chrono_literals;
using pouch::db::Conn;
using pouch::db::Lease;
using pouch::db::Pool;
using pouch::db::Statement;

namespace {

std::string unique_suffix() {
    std::random_device rd;
    return std::to_string(rd()) + std::to_string(rd() % 100000);
}

const Statement kAddOne{"t_add_one", "SELECT $1::int + 1 AS n"};
const Statement kIsNull{"t_is_null", "SELECT $1::text IS NULL AS isnull, $1::text AS v"};
const Statement kBackendPid{"t_backend_pid", "SELECT pg_backend_pid()::text AS pid"};
const Statement kPreparedCount{"t_prepared_count",
                               "SELECT count(*) AS n FROM pg_prepared_statements WHERE name = $1"};
const Statement kTerminate{"t_terminate", "SELECT pg_terminate_backend($1::int) AS ok"};
const Statement kAlive{"t_alive", "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1::int"};

std::string backend_pid(Lease& l) {
    return l->exec(kBackendPid).text(0, "pid");
}

// Kills a backend from a separate connection and waits until it is really gone, so the
// pooled connection sees a closed socket rather than a race.
void terminate_backend(const std::string& url, const std::string& pid) {
    Conn admin(url);
    ASSERT_TRUE(admin.ensure_connected());
    ASSERT_TRUE(admin.exec(kTerminate, {pid}).boolean(0, "ok"));
    for (int i = 0; i < 100; ++i) {
        if (admin.exec(kAlive, {pid}).int64(0, "n") == 0) return;
        std::this_thread::sleep_for(20ms);
    }
    FAIL() << "backend " << pid << " did not exit";
}

}  // namespace

TEST(DbPool, ExecPreparesANamedStatementOncePerConnection) {
    REQUIRE_DB();
    Pool pool(url, 1);
    Lease l = pool.acquire();
    EXPECT_EQ(l->exec(kAddOne, {"1"}).int64(0, "n"), 2);
    EXPECT_EQ(l->exec(kAddOne, {"41"}).int64(0, "n"), 42);
    EXPECT_EQ(l->exec(kPreparedCount, {"t_add_one"}).int64(0, "n"), 1);
}

TEST(DbPool, NulloptParamIsSqlNull) {
    REQUIRE_DB();
    Pool pool(url, 1);
    Lease l = pool.acquire();
    pouch::db::Result null_row = l->exec(kIsNull, {std::nullopt});
    EXPECT_TRUE(null_row.boolean(0, "isnull"));
    EXPECT_EQ(null_row.opt(0, "v"), std::nullopt);
    pouch::db::Result text_row = l->exec(kIsNull, {std::string("x")});
    EXPECT_FALSE(text_row.boolean(0, "isnull"));
    EXPECT_EQ(text_row.opt(0, "v"), std::optional<std::string>("x"));
}

TEST(DbPool, UniqueViolationCarriesSqlstate23505) {
    REQUIRE_DB();
    Pool pool(url, 1);
    Lease l = pool.acquire();
    l->exec_sql("CREATE TEMP TABLE t_unique (id int PRIMARY KEY)");
    const Statement ins{"t_unique_insert", "INSERT INTO t_unique (id) VALUES ($1::int)"};
    l->exec(ins, {"1"});
    try {
        l->exec(ins, {"1"});
        FAIL() << "second insert succeeded";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(e.sqlstate, "23505");
        EXPECT_FALSE(e.connection_lost);
    }
    l->exec_sql("DROP TABLE t_unique");
}

TEST(DbPool, UnknownColumnIsALogicError) {
    REQUIRE_DB();
    Pool pool(url, 1);
    Lease l = pool.acquire();
    EXPECT_THROW(l->exec(kAddOne, {"1"}).text(0, "missing"), std::logic_error);
}

TEST(DbPool, AcquireBeyondSizeWaitsForTheTimeoutThenThrows503) {
    REQUIRE_DB();
    Pool pool(url, 2, 300ms);
    Lease a = pool.acquire();
    Lease b = pool.acquire();
    auto start = std::chrono::steady_clock::now();
    try {
        pool.acquire();
        FAIL() << "third acquire succeeded on a pool of 2";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 503);
        EXPECT_EQ(e.code, "unavailable");
    }
    auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, 290ms);
    EXPECT_LT(waited, 3s);
}

TEST(DbPool, AcquireGetsAConnectionReleasedWhileWaiting) {
    REQUIRE_DB();
    Pool pool(url, 1, 5000ms);
    std::string first_pid;
    std::thread holder;
    {
        auto l = std::make_unique<Lease>(pool.acquire());
        first_pid = backend_pid(*l);
        holder = std::thread([l = std::move(l)]() mutable {
            std::this_thread::sleep_for(200ms);
            l.reset();
        });
    }
    Lease again = pool.acquire();
    holder.join();
    EXPECT_EQ(backend_pid(again), first_pid);
    EXPECT_EQ(pool.idle(), 0);
}

TEST(DbPool, ConnectionReturnedInsideATransactionIsRolledBack) {
    REQUIRE_DB();
    const std::string table = "t_rollback_" + unique_suffix();
    Pool pool(url, 1);
    {
        Lease l = pool.acquire();
        l->exec_sql("CREATE TABLE " + table + " (v int)");
        l->exec_sql("BEGIN");
        l->exec_sql("INSERT INTO " + table + " VALUES (1)");
        EXPECT_TRUE(l->in_transaction());
    }  // returned mid-transaction
    Lease l = pool.acquire();
    EXPECT_FALSE(l->in_transaction());
    EXPECT_EQ(l->exec_sql("SELECT count(*) FROM " + table).text(0, 0), "0");
    l->exec_sql("DROP TABLE " + table);
}

TEST(DbPool, TransactionWithoutCommitRollsBackAndCommitOfAFailedOneThrows) {
    REQUIRE_DB();
    Pool pool(url, 1);
    Lease l = pool.acquire();
    l->exec_sql("CREATE TEMP TABLE t_tx (v int PRIMARY KEY)");
    {
        pouch::db::Transaction tx(*l);
        l->exec_sql("INSERT INTO t_tx VALUES (1)");
    }
    EXPECT_EQ(l->exec_sql("SELECT count(*) FROM t_tx").text(0, 0), "0");
    {
        pouch::db::Transaction tx(*l);
        l->exec_sql("INSERT INTO t_tx VALUES (2)");
        EXPECT_THROW(l->exec_sql("INSERT INTO t_tx VALUES (2)"), pouch::Error);
        try {
            tx.commit();
            FAIL() << "commit of an aborted transaction succeeded";
        } catch (const pouch::Error& e) {
            EXPECT_EQ(e.sqlstate, "25P02");
        }
    }
    EXPECT_FALSE(l->in_transaction());
    EXPECT_EQ(l->exec_sql("SELECT count(*) FROM t_tx").text(0, 0), "0");
}

TEST(DbPool, IdleConnectionsKilledByTheServerAreReplacedOnNextAcquire) {
    REQUIRE_DB();
    Pool pool(url, 2);
    std::string pid_a, pid_b;
    {
        Lease a = pool.acquire();
        Lease b = pool.acquire();
        pid_a = backend_pid(a);
        pid_b = backend_pid(b);
    }
    ASSERT_EQ(pool.idle(), 2);
    terminate_backend(url, pid_a);
    terminate_backend(url, pid_b);

    Lease a = pool.acquire();
    Lease b = pool.acquire();
    // Same statement names as before the reset: they must be prepared again, not assumed.
    EXPECT_EQ(a->exec(kAddOne, {"1"}).int64(0, "n"), 2);
    EXPECT_EQ(b->exec(kAddOne, {"2"}).int64(0, "n"), 3);
    EXPECT_NE(backend_pid(a), pid_a);
    EXPECT_NE(backend_pid(b), pid_b);
}

TEST(DbPool, StatementOnAKilledConnectionReportsLostAndThePoolRecovers) {
    REQUIRE_DB();
    Pool pool(url, 1);
    std::string pid;
    {
        Lease l = pool.acquire();
        pid = backend_pid(l);
        terminate_backend(url, pid);
        try {
            l->exec(kAddOne, {"1"});
            FAIL() << "statement on a killed backend succeeded";
        } catch (const pouch::Error& e) {
            EXPECT_TRUE(e.connection_lost);
        }
    }
    Lease l = pool.acquire();
    EXPECT_EQ(l->exec(kAddOne, {"6"}).int64(0, "n"), 7);
    EXPECT_NE(backend_pid(l), pid);
}

TEST(DbPool, UnreachableDatabaseIs503WithRetryAfter) {
    Pool pool("postgresql://pouch@127.0.0.1:1/pouch?connect_timeout=1", 2);
    auto start = std::chrono::steady_clock::now();
    try {
        pool.acquire();
        FAIL() << "acquire succeeded against a closed port";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 503);
        EXPECT_EQ(e.code, "unavailable");
        ASSERT_EQ(e.headers.size(), 1u);
        EXPECT_EQ(e.headers[0].first, "Retry-After");
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    // The failed attempt gave its slot back: a second try fails the same way, not by timeout.
    EXPECT_THROW(pool.acquire(), pouch::Error);
    EXPECT_EQ(pool.idle(), 0);
}

TEST(DbPool, ManyThreadsShareABoundedPoolWithoutExceedingIt) {
    REQUIRE_DB();
    Pool pool(url, 3, 10000ms);
    const Statement active{"t_active_for_app",
                           "SELECT count(*) AS n FROM pg_stat_activity "
                           "WHERE application_name = $1"};
    const std::string app = "pool_bound_" + unique_suffix();
    std::atomic<int> sum{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 20; ++i) {
                Lease l = pool.acquire();
                l->exec_sql("SET application_name = '" + app + "'");
                sum += static_cast<int>(l->exec(kAddOne, {std::to_string(t)}).int64(0, "n"));
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(sum.load(), 20 * (8 * 9 / 2));  // sum over t of 20 * (t + 1)
    EXPECT_EQ(pool.idle(), 3);
    Lease l = pool.acquire();
    EXPECT_EQ(l->exec(active, {app}).int64(0, "n"), 3);
}
