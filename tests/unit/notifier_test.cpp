// notifier_test.cpp -- common/redis/notifier (long-poll wake-ups, decisions §6, §11) against a
// real Redis (POUCH_TEST_REDIS_URL; skipped when unset; pub/sub is server-wide, so every test
// uses its own channel names) and against local stand-ins for an unreachable Redis and for a
// subscriber connection that the server drops or answers late.
#include <gtest/gtest.h>

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
#include "common/redis/notifier.h"

using namespace std::chrono_literals;
using pouch::redis::Client;
using pouch::redis::Notifier;
using Clock = std::chrono::steady_clock;

namespace {

std::string test_url() {
    const char* u = std::getenv("POUCH_TEST_REDIS_URL");
    return u && *u ? u : "";
}

#define REQUIRE_REDIS()                 \
    const std::string url = test_url(); \
    if (url.empty()) GTEST_SKIP() << "POUCH_TEST_REDIS_URL is not set"

// The notifier subscribes to pouch:*; a random suffix keeps parallel runs apart.
std::string unique_channel(const std::string& what) {
    std::random_device rd;
    return "pouch:unit-notifier:" + what + ":" + std::to_string(rd()) + std::to_string(rd());
}

bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds limit = 5s) {
    auto until = Clock::now() + limit;
    while (Clock::now() < until) {
        if (cond()) return true;
        std::this_thread::sleep_for(10ms);
    }
    return cond();
}

long long ms_since(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

using pouch::testing::LocalSocket;

// A stand-in Redis for one subscriber: answers PSUBSCRIBE once `ack` is set, then can send
// a pmessage or drop the connection. Each new connection waits for `ack` again.
class FakeSubscriberServer {
  public:
    FakeSubscriberServer() {
        ::listen(sock_.fd, 8);
        thread_ = std::thread([this] { serve(); });
    }
    ~FakeSubscriberServer() {
        stop_ = true;
        drop();
        ::shutdown(sock_.fd, SHUT_RDWR);
        thread_.join();
    }
    std::string url() const { return sock_.url(); }
    int connections() const { return connections_; }
    std::atomic<bool> ack{true};

    // Closes the current subscriber connection, as a Redis restart would.
    void drop() {
        int c = client_.exchange(-1);
        if (c >= 0) {
            ::shutdown(c, SHUT_RDWR);
            ::close(c);
        }
    }
    void publish(const std::string& channel) {
        std::string m = "*4\r\n$8\r\npmessage\r\n$7\r\npouch:*\r\n$" +
                        std::to_string(channel.size()) + "\r\n" + channel + "\r\n$1\r\n1\r\n";
        int c = client_.load();
        if (c >= 0) ::send(c, m.data(), m.size(), MSG_NOSIGNAL);
    }

  private:
    void serve() {
        while (!stop_) {
            int c = ::accept(sock_.fd, nullptr, nullptr);
            if (c < 0) return;
            ++connections_;
            char buf[512];
            if (::recv(c, buf, sizeof buf, 0) <= 0) {
                ::close(c);
                continue;
            }
            while (!ack && !stop_) std::this_thread::sleep_for(5ms);
            const std::string reply = "*3\r\n$10\r\npsubscribe\r\n$7\r\npouch:*\r\n:1\r\n";
            ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
            client_ = c;
        }
    }
    LocalSocket sock_;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0};
    std::atomic<int> client_{-1};
    std::thread thread_;
};

}  // namespace

TEST(Notifier, PublishWakesTheWaiterOfThatChannel) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("wake");
    auto sub = n.subscribe(ch);
    std::thread publisher([&] {
        std::this_thread::sleep_for(100ms);
        redis.publish(ch, "1");
    });
    auto start = Clock::now();
    EXPECT_TRUE(sub->wait_until(Clock::now() + 10s));
    long long waited = ms_since(start);
    publisher.join();
    EXPECT_GE(waited, 90);
    EXPECT_LT(waited, 1000) << "a publish must wake the waiter at once";
}

TEST(Notifier, PublishOnAnotherChannelDoesNotWake) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    Client redis(url);
    auto sub = n.subscribe(unique_channel("mine"));
    redis.publish(unique_channel("other"), "1");
    auto start = Clock::now();
    EXPECT_FALSE(sub->wait_until(Clock::now() + 400ms));
    EXPECT_GE(ms_since(start), 390);
}

TEST(Notifier, MessageBetweenRegisterAndWaitIsNotLost) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("early");
    auto sub = n.subscribe(ch);  // registered, not yet waiting: the re-read happens here
    ASSERT_GE(redis.publish(ch, "1").value_or(0), 1);
    std::this_thread::sleep_for(100ms);  // delivered before wait_until is called
    auto start = Clock::now();
    EXPECT_TRUE(sub->wait_until(Clock::now() + 10s));
    EXPECT_LT(ms_since(start), 50);
}

TEST(Notifier, EveryWaiterOfAChannelIsWokenAndUnsubscribedWaitersAreGone) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("many");
    std::atomic<int> woken{0};
    std::vector<std::thread> waiters;
    for (int i = 0; i < 4; ++i)
        waiters.emplace_back([&] {
            auto sub = n.subscribe(ch);
            if (sub->wait_until(Clock::now() + 10s)) ++woken;
        });
    ASSERT_TRUE(eventually([&] { return n.waiters() == 4; }));
    redis.publish(ch, "1");
    for (auto& t : waiters) t.join();
    EXPECT_EQ(woken.load(), 4);
    EXPECT_EQ(n.waiters(), 0u);
}

TEST(Notifier, LongPollReturnsAsSoonAsTheConditionHoldsAfterAPublish) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("poll");
    std::atomic<bool> decided{false};
    std::atomic<int> reads{0};
    std::thread approver([&] {
        std::this_thread::sleep_for(200ms);
        decided = true;
        redis.publish(ch, "1");
    });
    auto start = Clock::now();
    bool ok = n.long_poll(ch, Clock::now() + 10s, [&] {
        ++reads;
        return decided.load();
    });
    long long waited = ms_since(start);
    approver.join();
    EXPECT_TRUE(ok);
    EXPECT_LT(waited, 1000);
    EXPECT_EQ(reads.load(), 2) << "one read before waiting, one after the wake-up";
}

TEST(Notifier, LongPollGivesUpAtTheDeadline) {
    REQUIRE_REDIS();
    Notifier n(url);
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    auto start = Clock::now();
    EXPECT_FALSE(n.long_poll(unique_channel("never"), Clock::now() + 300ms, [] { return false; }));
    long long waited = ms_since(start);
    EXPECT_GE(waited, 290);
    EXPECT_LT(waited, 1000);
}

TEST(Notifier, UnreachableRedisFallsBackToRereadingEverySecond) {
    LocalSocket closed;  // bound, never listening: connections are refused
    Notifier n(closed.url());
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(n.connected());

    auto sub = n.subscribe(unique_channel("down"));
    auto start = Clock::now();
    EXPECT_FALSE(sub->wait_until(Clock::now() + 10s));
    long long waited = ms_since(start);
    EXPECT_GE(waited, 950);
    EXPECT_LT(waited, 1500) << "without Redis a wait lasts at most about a second";
    sub.reset();

    // A long-poll therefore re-reads the database about once a second.
    std::atomic<int> reads{0};
    start = Clock::now();
    EXPECT_FALSE(n.long_poll(unique_channel("down"), Clock::now() + 2500ms, [&] {
        ++reads;
        return false;
    }));
    waited = ms_since(start);
    EXPECT_GE(waited, 2490);
    EXPECT_LT(waited, 3500);
    EXPECT_GE(reads.load(), 3);
    EXPECT_LE(reads.load(), 4);
}

TEST(Notifier, UnreachableRedisStillAnswersAtAnEarlierDeadline) {
    LocalSocket closed;
    Notifier n(closed.url());
    auto sub = n.subscribe(unique_channel("short"));
    auto start = Clock::now();
    EXPECT_FALSE(sub->wait_until(Clock::now() + 200ms));
    long long waited = ms_since(start);
    EXPECT_GE(waited, 190);
    EXPECT_LT(waited, 600);
}

TEST(Notifier, DeliversMessagesFromTheSubscriberConnection) {
    FakeSubscriberServer server;
    Notifier n(server.url());
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    const std::string ch = unique_channel("fake");
    auto sub = n.subscribe(ch);
    std::this_thread::sleep_for(50ms);  // the wake-up that follows a connect is consumed
    sub->wait_until(Clock::now() + 1ms);
    std::thread t([&] {
        std::this_thread::sleep_for(100ms);
        server.publish(ch);
    });
    auto start = Clock::now();
    EXPECT_TRUE(sub->wait_until(Clock::now() + 10s));
    EXPECT_LT(ms_since(start), 1000);
    t.join();
}

TEST(Notifier, LostConnectionWakesEveryWaiterToReread) {
    FakeSubscriberServer server;
    Notifier n(server.url());
    ASSERT_TRUE(eventually([&] { return n.connected(); }));
    auto sub = n.subscribe(unique_channel("drop"));
    std::this_thread::sleep_for(50ms);
    sub->wait_until(Clock::now() + 1ms);  // consume the connect wake-up
    server.ack = false;  // the reconnect will hang on its PSUBSCRIBE answer
    std::thread t([&] {
        std::this_thread::sleep_for(150ms);
        server.drop();
    });
    auto start = Clock::now();
    EXPECT_TRUE(sub->wait_until(Clock::now() + 10s));
    EXPECT_LT(ms_since(start), 1000) << "a message may have been lost: waiters must re-read";
    t.join();
    EXPECT_TRUE(eventually([&] { return !n.connected(); }, 1s));
    server.ack = true;
}

TEST(Notifier, ReconnectWakesEveryWaiterToReread) {
    FakeSubscriberServer server;
    server.ack = false;  // connected only once the test lets PSUBSCRIBE succeed
    Notifier n(server.url());
    ASSERT_TRUE(eventually([&] { return server.connections() == 1; }));
    EXPECT_FALSE(n.connected());
    auto sub = n.subscribe(unique_channel("reconnect"));
    std::thread t([&] {
        std::this_thread::sleep_for(200ms);
        server.ack = true;
    });
    auto start = Clock::now();
    // Disconnected, so the wait is capped at one second; the reconnect must end it sooner.
    EXPECT_TRUE(sub->wait_until(Clock::now() + 10s));
    long long waited = ms_since(start);
    t.join();
    EXPECT_GE(waited, 150);
    EXPECT_LT(waited, 900);
    EXPECT_TRUE(n.connected());
}

TEST(Notifier, ServerThatNeverAnswersPsubscribeDoesNotHangShutdown) {
    FakeSubscriberServer server;
    server.ack = false;
    auto start = Clock::now();
    {
        Notifier n(server.url());
        ASSERT_TRUE(eventually([&] { return server.connections() == 1; }));
    }  // destructor: stop() and join
    EXPECT_LT(ms_since(start), 4000);
    server.ack = true;
}

TEST(Notifier, StopWakesWaitersAndEndsLongPolls) {
    LocalSocket closed;
    Notifier n(closed.url());
    std::atomic<bool> returned{false};
    std::thread waiter([&] {
        n.long_poll(unique_channel("stop"), Clock::now() + 30s, [] { return false; });
        returned = true;
    });
    std::this_thread::sleep_for(100ms);
    auto start = Clock::now();
    n.stop();
    waiter.join();
    EXPECT_TRUE(returned.load());
    EXPECT_LT(ms_since(start), 500);
}
