// replay_cache_test.cpp -- the DPoP jti replay cache with a real Redis and PostgreSQL
// (POUCH_TEST_REDIS_URL, POUCH_TEST_DATABASE_URL, migrated; skipped when unset), and with
// Redis replaced by a refused port or a local stand-in to exercise the Postgres fallback.
#include <gtest/gtest.h>

#include "tests/unit/local_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "common/auth/replay_cache.h"
#include "common/http/error.h"

using namespace std::chrono_literals;
using pouch::auth::ReplayCache;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
}

#define REQUIRE_DB()                                           \
    const std::string db_url = env("POUCH_TEST_DATABASE_URL"); \
    if (db_url.empty()) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set"

#define REQUIRE_REDIS()                                        \
    const std::string redis_url = env("POUCH_TEST_REDIS_URL"); \
    if (redis_url.empty()) GTEST_SKIP() << "POUCH_TEST_REDIS_URL is not set"

std::string unique(const std::string& prefix) {
    std::random_device rd;
    return prefix + std::to_string(rd()) + std::to_string(rd());
}

using pouch::testing::LocalSocket;

const pouch::db::Statement kRow{
    "t_replay_row",
    "SELECT expires_at > now() AS live FROM dpop_replay WHERE jkt = $1 AND jti = $2"};
const pouch::db::Statement kExpiredRow{
    "t_replay_expired",
    "INSERT INTO dpop_replay (jkt, jti, expires_at) VALUES ($1, $2, now() - interval '1 s')"};

}  // namespace

TEST(ReplayCache, FirstUseIsTrueThenAReplayIsFalse) {
    REQUIRE_DB();
    REQUIRE_REDIS();
    pouch::redis::Client redis(redis_url);
    pouch::db::Pool pool(db_url, 1);
    ReplayCache cache(redis, pool);
    const std::string jkt = unique("jkt-"), jti = unique("jti-");
    EXPECT_TRUE(cache.first_use(jkt, jti));
    EXPECT_FALSE(cache.first_use(jkt, jti));
    // Same jti under another key is a different proof.
    EXPECT_TRUE(cache.first_use(unique("jkt-"), jti));
    // Redis served it: nothing was written to Postgres.
    EXPECT_EQ(pool.acquire()->exec(kRow, {jkt, jti}).rows(), 0);
}

TEST(ReplayCache, RedisDownFallsBackToPostgres) {
    REQUIRE_DB();
    LocalSocket refused;
    pouch::redis::Client redis(refused.url(), 200ms);
    pouch::db::Pool pool(db_url, 1);
    ReplayCache cache(redis, pool);
    const std::string jkt = unique("jkt-"), jti = unique("jti-");
    EXPECT_TRUE(cache.first_use(jkt, jti));
    EXPECT_FALSE(cache.first_use(jkt, jti));
    pouch::db::Result row = pool.acquire()->exec(kRow, {jkt, jti});
    ASSERT_EQ(row.rows(), 1);
    EXPECT_TRUE(row.boolean(0, "live"));
}

TEST(ReplayCache, ExpiredPostgresEntryCountsAsUnseenAndIsRenewed) {
    REQUIRE_DB();
    LocalSocket refused;
    pouch::redis::Client redis(refused.url(), 200ms);
    pouch::db::Pool pool(db_url, 1);
    ReplayCache cache(redis, pool);
    const std::string jkt = unique("jkt-"), jti = unique("jti-");
    pool.acquire()->exec(kExpiredRow, {jkt, jti});
    EXPECT_TRUE(cache.first_use(jkt, jti));
    EXPECT_TRUE(pool.acquire()->exec(kRow, {jkt, jti}).boolean(0, "live"));
    EXPECT_FALSE(cache.first_use(jkt, jti));
}

TEST(ReplayCache, BothStoresDownIs503NeverAcceptance) {
    LocalSocket refused;
    pouch::redis::Client redis(refused.url(), 200ms);
    pouch::db::Pool pool("postgresql://pouch@127.0.0.1:1/pouch?connect_timeout=1", 1);
    ReplayCache cache(redis, pool);
    try {
        cache.first_use("jkt", "jti");
        FAIL() << "a proof was accepted unchecked";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 503);
        EXPECT_EQ(e.code, "unavailable");
    }
}

TEST(ReplayCache, ProofFirstSeenDuringARedisOutageIsStillAReplayAfterRedisReturns) {
    REQUIRE_DB();
    LocalSocket later;  // refuses now; listens once "Redis" is back
    pouch::redis::Client redis(later.url(), 500ms);
    pouch::db::Pool pool(db_url, 1);
    ReplayCache cache(redis, pool);
    const std::string jkt = unique("jkt-"), jti = unique("jti-");
    ASSERT_TRUE(cache.first_use(jkt, jti));  // recorded in Postgres only

    // Redis comes back empty (as after a restart): every SET NX answers OK, i.e. "unseen".
    ::listen(later.fd, 8);
    std::atomic<bool> stop{false};
    std::thread server([&] {
        int c = ::accept(later.fd, nullptr, nullptr);
        if (c < 0) return;
        timeval tick{0, 50000};  // so the loop notices `stop` while the client stays connected
        ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
        char buf[4096];
        while (!stop) {
            ssize_t n = ::recv(c, buf, sizeof buf, 0);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) break;
            if (n > 0 && ::send(c, "+OK\r\n", 5, MSG_NOSIGNAL) < 0) break;
        }
        ::close(c);
    });

    EXPECT_FALSE(cache.first_use(jkt, jti));            // Postgres remembers it
    EXPECT_TRUE(cache.first_use(jkt, unique("jti-")));  // a new proof still passes

    stop = true;
    ::shutdown(later.fd, SHUT_RDWR);
    server.join();
}

// Two handler hosts (docs/SCALING.md): the first lost Redis and recorded a proof in Postgres
// only; the second reaches Redis, which has never seen the proof. The second must still
// refuse it, though its own process never fell back.
TEST(ReplayCache, ProofRecordedByAnotherHostDuringItsRedisOutageIsAReplayHere) {
    REQUIRE_DB();
    REQUIRE_REDIS();
    LocalSocket refused;
    pouch::redis::Client redis_down(refused.url(), 200ms);
    pouch::redis::Client redis_up(redis_url);
    pouch::db::Pool pool_a(db_url, 1), pool_b(db_url, 1);
    ReplayCache host_a(redis_down, pool_a);
    ReplayCache host_b(redis_up, pool_b);
    const std::string jkt = unique("jkt-"), jti = unique("jti-");

    ASSERT_TRUE(host_a.first_use(jkt, jti));             // Postgres only
    EXPECT_FALSE(host_b.first_use(jkt, jti));            // Redis says new; the table says seen
    EXPECT_TRUE(host_b.first_use(jkt, unique("jti-")));  // a new proof still passes
}
