// redis_client_test.cpp -- common/redis/client against a real Redis (POUCH_TEST_REDIS_URL,
// which carries the stack's ACL user and password; those tests skip when unset) and against
// local stand-ins for a dead, a stalled, a connection-dropping and an AUTH-refusing server,
// which need no Redis at all.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include "tests/unit/local_socket.h"
#include "tests/unit/stderr_capture.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "common/log/log.h"
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
    // The same with credentials: redis://USERINFO@127.0.0.1:port.
    std::string url_with(const std::string& userinfo) const {
        return "redis://" + userinfo + "@" + sock_.url().substr(8);
    }
    int connections() const { return connections_; }
    std::string received() {
        std::lock_guard<std::mutex> lk(mu_);
        return received_;
    }

  private:
    void serve() {
        while (!stop_) {
            int c = ::accept(sock_.fd, nullptr, nullptr);
            if (c < 0) return;
            ++connections_;
            char buf[4096];
            for (int served = 0; served < per_conn_; ++served) {
                ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) break;
                {
                    std::lock_guard<std::mutex> lk(mu_);
                    received_.append(buf, static_cast<size_t>(n));
                }
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
    std::mutex mu_;
    std::string received_;
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
}

TEST(RedisClient, ParseUrlReadsAnAclUserAndPassword) {
    auto a = Client::parse_url("redis://pouch:s3cret@127.0.0.1:6380/2");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->username, "pouch");
    EXPECT_EQ(a->password, "s3cret");
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 6380);
    EXPECT_EQ(a->db, 2);
    auto b = Client::parse_url("redis://:only-a-password@cache.internal");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->username, "");
    EXPECT_EQ(b->password, "only-a-password");
    auto c = Client::parse_url("redis://us%3Aer:p%40ss%3Aw%2Fd%25@[::1]:7000/1");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->username, "us:er");
    EXPECT_EQ(c->password, "p@ss:w/d%");
    EXPECT_EQ(c->host, "::1");
    auto d = Client::parse_url("redis://cache.internal");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->password, "");  // no AUTH
}

TEST(RedisClient, ParseUrlRefusesCredentialsItCannotUse) {
    EXPECT_FALSE(Client::parse_url("redis://user@h"));   // a user without a password
    EXPECT_FALSE(Client::parse_url("redis://user:@h"));  // an empty password
    EXPECT_FALSE(Client::parse_url("redis://:@h"));
    EXPECT_FALSE(Client::parse_url("redis://u:p@ss@h"));  // '@' must be %40
    EXPECT_FALSE(Client::parse_url("redis://u:p%4@h"));   // a truncated escape
    EXPECT_FALSE(Client::parse_url("redis://u:p%zz@h"));
    EXPECT_FALSE(Client::parse_url("redis://u:pass@"));  // no host
}

TEST(RedisClient, RedactedHidesThePasswordOnly) {
    EXPECT_EQ(Client::redacted("redis://pouch:s3cret@h:6379/0"), "redis://pouch:***@h:6379/0");
    EXPECT_EQ(Client::redacted("redis://:s3cret@h"), "redis://:***@h");
    EXPECT_EQ(Client::redacted("redis://h:6379/0"), "redis://h:6379/0");
}

TEST(RedisClient, AuthIsSentWithUserAndPasswordOnEveryNewConnection) {
    FakeRedis server("+OK\r\n", 2);  // AUTH and one command per connection
    Client redis(server.url_with("pouch:pw"), 500ms);
    EXPECT_EQ(redis.publish("c", "m"), std::nullopt);  // "+OK" is no integer: no answer
    EXPECT_EQ(redis.publish("c", "m"), std::nullopt);
    std::string auth = "*3\r\n$4\r\nAUTH\r\n$5\r\npouch\r\n$2\r\npw\r\n";
    std::string got = server.received();
    EXPECT_EQ(got.find(auth), 0u) << got;
    EXPECT_NE(got.find(auth, auth.size()), std::string::npos) << "no AUTH after reconnecting";
    EXPECT_EQ(server.connections(), 2);
}

TEST(RedisClient, APasswordAloneAuthenticatesTheDefaultUser) {
    FakeRedis server("+PONG\r\n", 2);
    Client redis(server.url_with(":pw"), 500ms);
    EXPECT_TRUE(redis.ping());
    EXPECT_EQ(server.received().find("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n"), 0u);
}

TEST(RedisClient, ARefusedAuthIsReportedUnreachableNotThrown) {
    FakeRedis server("-WRONGPASS invalid username-password pair or user is disabled.\r\n", 8);
    Client redis(server.url_with("pouch:wrong"), 500ms);
    EXPECT_FALSE(redis.ping());
    EXPECT_EQ(redis.set_nx_ex("k", "v", 10), std::nullopt);
    EXPECT_EQ(server.received().find("SET"), std::string::npos) << "a command after a refused AUTH";
}

TEST(RedisClient, ARefusedAuthIsLoggedOnceWithoutThePassword) {
    FakeRedis server("-WRONGPASS invalid username-password pair or user is disabled.\r\n", 8);
    std::string out = pouch::testing::capture_stderr([&] {
        pouch::log::init("test", "info");
        Client redis(server.url_with("pouch:Pa55-w0rd%40x"), 500ms);
        EXPECT_FALSE(redis.ping());
        EXPECT_FALSE(redis.ping());
    });
    EXPECT_NE(out.find("redis refused AUTH"), std::string::npos) << out;
    EXPECT_EQ(out.find("redis refused AUTH"), out.rfind("redis refused AUTH")) << "logged twice";
    EXPECT_NE(out.find("redis://pouch:***@127.0.0.1"), std::string::npos) << out;
    EXPECT_EQ(out.find("Pa55"), std::string::npos) << "the password reached the log: " << out;
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
    ASSERT_TRUE(Client::parse_url(url));
    const std::string base = url.substr(0, url.rfind('/'));  // credentials kept, db dropped
    // The same key in two databases is two keys.
    const std::string key = unique_key("pouch:test:db:");
    Client db14(base + "/14");
    Client db15(base + "/15");
    EXPECT_EQ(db14.set_nx_ex(key, "1", 60), std::optional<bool>(true));
    EXPECT_EQ(db15.set_nx_ex(key, "1", 60), std::optional<bool>(true));
    EXPECT_EQ(db14.set_nx_ex(key, "1", 60), std::optional<bool>(false));
}

// The stack's Redis has an ACL user with a password and the default user off (tools/stack):
// the URL's credentials work, a wrong password or none at all do not.
TEST(RedisClient, TheStacksRedisNeedsTheUrlsCredentials) {
    REQUIRE_REDIS();
    auto addr = Client::parse_url(url);
    ASSERT_TRUE(addr);
    if (addr->password.empty()) GTEST_SKIP() << "POUCH_TEST_REDIS_URL carries no password";
    EXPECT_TRUE(Client(url).ping());
    const std::string hostpart = url.substr(url.rfind('@') + 1);
    EXPECT_FALSE(
        Client("redis://" + addr->username + ":wrong-" + addr->password + "@" + hostpart).ping());
    EXPECT_FALSE(Client("redis://" + hostpart).ping());
}
