// redis_client_test.cpp -- common/redis/client against a real Redis (POUCH_TEST_REDIS_URL;
// those tests skip when unset) and against local stand-ins for a dead, a stalled and a
// connection-dropping server, which need no Redis at all.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include "tests/unit/local_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "common/redis/client.h"

using namespace std::chrono_literals;
using pouch::redis::Client;

namespace {

std::string unique_key(const std::string& prefix) {
    std::random_device rd;
    return prefix + std::to_string(rd()) + "-" + std::to_string(rd());
}

using pouch::testing::LocalSocket;

// Answers each read with `reply` and closes every connection after `per_connection`
// commands, like a server restart between calls.
class FakeRedis {
  public:
    FakeRedis(std::string reply, int per_connection)
        : reply_(std::move(reply)), per_conn_(per_connection) {
        ::listen(sock_.fd, 8);
        thread_ = std::thread([this] { serve(); });
    }
    ~FakeRedis() {
        stop_ = true;
        ::shutdown(sock_.fd, SHUT_RDWR);
        thread_.join();
    }
    std::string url() const { return sock_.url(); }
    int connections() const { return connections_; }

  private:
    void serve() {
        while (!stop_) {
            int c = ::accept(sock_.fd, nullptr, nullptr);
            if (c < 0) return;
            ++connections_;
            char buf[4096];
            for (int served = 0; served < per_conn_; ++served) {
                if (::recv(c, buf, sizeof buf, 0) <= 0) break;
                if (::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL) < 0) break;
            }
            ::close(c);
        }
    }
    LocalSocket sock_;
    std::string reply_;
    int per_conn_;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0};
    std::thread thread_;
};

}  // namespace

TEST(RedisClient, ParseUrlReadsHostPortAndDb) {
    auto a = Client::parse_url("redis://127.0.0.1:6380/2");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 6380);
    EXPECT_EQ(a->db, 2);
    auto b = Client::parse_url("redis://cache.internal");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->host, "cache.internal");
    EXPECT_EQ(b->port, 6379);
    EXPECT_EQ(b->db, 0);
    auto c = Client::parse_url("redis://[::1]:7000/0");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->host, "::1");
    EXPECT_EQ(c->port, 7000);
}

TEST(RedisClient, ParseUrlRejectsMalformedUrls) {
    EXPECT_FALSE(Client::parse_url("http://127.0.0.1:6379"));
    EXPECT_FALSE(Client::parse_url("redis://"));
    EXPECT_FALSE(Client::parse_url("redis://h:port"));
    EXPECT_FALSE(Client::parse_url("redis://h:70000"));
    EXPECT_FALSE(Client::parse_url("redis://h:6379/x"));
    EXPECT_FALSE(Client::parse_url("redis://user:secret@h:6379"));
}

TEST(RedisClient, SetNxExSetsOnceThenReportsTheKeyExists) {
    REQUIRE_REDIS();
    Client redis(url);
    const std::string key = unique_key("pouch:test:nx:");
    EXPECT_EQ(redis.set_nx_ex(key, "1", 60), std::optional<bool>(true));
    EXPECT_EQ(redis.set_nx_ex(key, "1", 60), std::optional<bool>(false));
}

TEST(RedisClient, SetNxExKeyExpiresAfterItsTtl) {
    REQUIRE_REDIS();
    Client redis(url);
    const std::string key = unique_key("pouch:test:ttl:");
    EXPECT_EQ(redis.set_nx_ex(key, "1", 1), std::optional<bool>(true));
    std::this_thread::sleep_for(1100ms);
    EXPECT_EQ(redis.set_nx_ex(key, "1", 1), std::optional<bool>(true));
}

TEST(RedisClient, PublishWithoutSubscribersReachesZero) {
    REQUIRE_REDIS();
    Client redis(url);
    EXPECT_EQ(redis.publish(unique_key("pouch:test:chan:"), "hello"), std::optional<long long>(0));
}

TEST(RedisClient, PingAnswersTrue) {
    REQUIRE_REDIS();
    Client redis(url);
    EXPECT_TRUE(redis.ping());
}

TEST(RedisClient, UnreachableServerIsReportedNotThrownWithinTheTimeout) {
    LocalSocket closed;  // bound, never listening: connections are refused
    Client redis(closed.url(), 300ms);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(redis.set_nx_ex("k", "v", 10), std::nullopt);
    EXPECT_EQ(redis.publish("c", "m"), std::nullopt);
    EXPECT_FALSE(redis.ping());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(RedisClient, StalledServerTimesOutOnReadAndIsReportedUnreachable) {
    LocalSocket stalled;
    ::listen(stalled.fd, 8);  // the kernel completes the handshake; nobody ever answers
    Client redis(stalled.url(), 200ms);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(redis.set_nx_ex("k", "v", 10), std::nullopt);
    auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, 190ms);
    EXPECT_LT(waited, 2s);
}

TEST(RedisClient, ConnectionDroppedByTheServerIsReopenedWithinTheSameCall) {
    FakeRedis server("+PONG\r\n", 1);  // closes each connection after one answer
    Client redis(server.url(), 500ms);
    EXPECT_TRUE(redis.ping());
    EXPECT_TRUE(redis.ping());
    EXPECT_TRUE(redis.ping());
    EXPECT_EQ(server.connections(), 3);
}

TEST(RedisClient, SelectsTheDatabaseNamedInTheUrl) {
    REQUIRE_REDIS();
    auto addr = Client::parse_url(url);
    ASSERT_TRUE(addr);
    const std::string base = "redis://" + addr->host + ":" + std::to_string(addr->port);
    // The same key in two databases is two keys.
    const std::string key = unique_key("pouch:test:db:");
    Client db14(base + "/14");
    Client db15(base + "/15");
    EXPECT_EQ(db14.set_nx_ex(key, "1", 60), std::optional<bool>(true));
    EXPECT_EQ(db15.set_nx_ex(key, "1", 60), std::optional<bool>(true));
    EXPECT_EQ(db14.set_nx_ex(key, "1", 60), std::optional<bool>(false));
}
