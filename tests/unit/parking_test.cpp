// parking_test.cpp -- common/http/parking + common/redis/notifier (parked long-polls and their
// wake-ups, decisions §6, §5.2, §11) against a real Redis (POUCH_TEST_REDIS_URL; skipped when
// unset; pub/sub is server-wide, so every test uses its own channel names) and against local
// stand-ins for an unreachable Redis and for a subscriber connection that the server drops or
// answers late.
#include <gtest/gtest.h>

#include "tests/unit/test_env.h"

#include "tests/unit/local_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "common/http/error.h"
#include "common/http/parking.h"
#include "common/redis/client.h"

namespace http = pouch::http;

using namespace std::chrono_literals;
using pouch::Code;
using pouch::Error;
using pouch::http::LongPoll;
using pouch::http::Parking;
using pouch::http::Rendered;
using pouch::http::Response;
using pouch::redis::Client;
using Clock = std::chrono::steady_clock;

namespace {

// The test Parkings subscribe to kPattern; a random suffix keeps parallel runs apart.
const std::string kPattern = "pouch:unit-parking:*";
std::string unique_channel(const std::string& what) {
    std::random_device rd;
    return "pouch:unit-parking:" + what + ":" + std::to_string(rd()) + std::to_string(rd());
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

// One parked request: its poll counts reads and answers once `ready` is set (or when final);
// the answer it gets is kept for the test. Parking::stop() answers whatever is still parked,
// so a test that leaves a Waiter parked stops the Parking before the Waiter goes out of scope.
class Waiter {
  public:
    std::atomic<int> reads{0};
    std::atomic<bool> ready{false};

    http::LongPoll long_poll(const std::string& channel, std::uint64_t seen,
                             std::chrono::milliseconds wait, std::string share_key = "") {
        http::LongPoll lp;
        lp.channel = channel;
        lp.seen = seen;
        lp.deadline = Clock::now() + wait;
        lp.share_key = std::move(share_key);
        lp.poll = [this](bool final) -> std::optional<http::Response> {
            ++reads;
            if (!ready && !final) return std::nullopt;
            http::Response r;
            r.data = ready ? "{\"ready\":true}" : "{\"ready\":false}";
            return r;
        };
        return lp;
    }
    http::Parking::Finish finish() {
        return [this](const http::Rendered& out, const std::string&) {
            std::lock_guard<std::mutex> lock(mu_);
            answer_ = out;
            answered_at_ = Clock::now();
            cv_.notify_all();
        };
    }
    void park(http::Parking& p, http::LongPoll lp) { p.park(std::move(lp), "test", finish()); }
    // The answer, once there is one within `limit`.
    std::optional<http::Rendered> answer(std::chrono::milliseconds limit = 10s) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, limit, [&] { return answer_.has_value(); });
        return answer_;
    }
    bool answered() {
        std::lock_guard<std::mutex> lock(mu_);
        return answer_.has_value();
    }
    Clock::time_point answered_at() {
        std::lock_guard<std::mutex> lock(mu_);
        return answered_at_;
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::optional<http::Rendered> answer_;
    Clock::time_point answered_at_;
};

bool says_ready(const std::optional<http::Rendered>& r) {
    return r && r->status == 200 && r->body.find("\"ready\":true") != std::string::npos;
}

int process_threads() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    return -1;
}

}  // namespace

TEST(Parking, PublishAnswersTheParkedRequestOfThatChannel) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("wake");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    EXPECT_EQ(p.parked(), 1u);
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(w.reads.load(), 0) << "nothing moved since the route's read: no re-read";
    auto published = Clock::now();
    w.ready = true;
    redis.publish(ch, "1");
    auto a = w.answer();
    EXPECT_TRUE(says_ready(a));
    EXPECT_LT(
        std::chrono::duration_cast<std::chrono::milliseconds>(w.answered_at() - published).count(),
        200)
        << "a publish must answer the parked request at once";
    EXPECT_EQ(w.reads.load(), 1);
    EXPECT_EQ(p.parked(), 0u);
}

TEST(Parking, PublishOnAnotherChannelDoesNotWake) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("mine");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    redis.publish(unique_channel("other"), "1");
    std::this_thread::sleep_for(400ms);
    EXPECT_FALSE(w.answered());
    EXPECT_EQ(w.reads.load(), 0);
    EXPECT_EQ(p.parked(), 1u);
    p.stop();  // answers w while it is alive
    EXPECT_TRUE(w.answered());
}

TEST(Parking, MessageBetweenTheRoutesReadAndParkIsNotLost) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("early");
    Waiter w;
    std::uint64_t seen = p.stamp(ch);  // the route's read happens here and finds nothing
    w.ready = true;
    ASSERT_GE(redis.publish(ch, "1").value_or(0), 1);
    ASSERT_TRUE(eventually([&] { return p.stamp(ch) != seen; }));  // delivered before park
    auto start = Clock::now();
    w.park(p, w.long_poll(ch, seen, 10s));
    EXPECT_TRUE(says_ready(w.answer()));
    EXPECT_LT(ms_since(start), 200);
}

TEST(Parking, EveryParkedRequestOfAChannelIsAnsweredAndLeaves) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("many");
    std::vector<std::unique_ptr<Waiter>> ws;
    for (int i = 0; i < 4; ++i) {
        ws.push_back(std::make_unique<Waiter>());
        ws.back()->park(p, ws.back()->long_poll(ch, p.stamp(ch), 10s));
    }
    EXPECT_EQ(p.parked(), 4u);
    for (auto& w : ws) w->ready = true;
    redis.publish(ch, "1");
    for (auto& w : ws) EXPECT_TRUE(says_ready(w->answer()));
    EXPECT_EQ(p.parked(), 0u);
}

TEST(Parking, ParkedRequestsHoldNoThread) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("threads");
    int before = process_threads();
    std::vector<std::unique_ptr<Waiter>> ws;
    for (int i = 0; i < 1000; ++i) {
        ws.push_back(std::make_unique<Waiter>());
        ws.back()->park(p, ws.back()->long_poll(ch, p.stamp(ch), 30s));
    }
    EXPECT_EQ(p.parked(), 1000u);
    EXPECT_EQ(process_threads(), before);
    for (auto& w : ws) w->ready = true;
    Client(url).publish(ch, "1");
    for (auto& w : ws) EXPECT_TRUE(says_ready(w->answer()));
}

TEST(Parking, WaitersWithOneShareKeyWokenTogetherShareOnePoll) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("share");
    std::atomic<int> polls{0};
    std::atomic<bool> ready{false};
    std::vector<std::unique_ptr<Waiter>> ws;
    for (int i = 0; i < 50; ++i) {
        ws.push_back(std::make_unique<Waiter>());
        http::LongPoll lp = ws.back()->long_poll(ch, p.stamp(ch), 10s, "page-after-7");
        lp.poll = [&](bool final) -> std::optional<http::Response> {
            ++polls;
            if (!ready && !final) return std::nullopt;
            http::Response r;
            r.data = ready ? "{\"ready\":true}" : "{\"ready\":false}";
            return r;
        };
        ws.back()->park(p, std::move(lp));
    }
    redis.publish(ch, "1");  // nothing new yet: every waiter re-reads (shared) and stays
    ASSERT_TRUE(eventually([&] { return polls.load() > 0; }));
    std::this_thread::sleep_for(200ms);
    EXPECT_LE(polls.load(), 2) << "at most one poll per poll thread for one wake-up";
    EXPECT_EQ(p.parked(), 50u);
    int first_round = polls.load();
    ready = true;
    redis.publish(ch, "1");  // a new message: the remembered "nothing" must not be reused
    for (auto& w : ws) EXPECT_TRUE(says_ready(w->answer()));
    EXPECT_LE(polls.load() - first_round, 2);
    EXPECT_EQ(p.parked(), 0u);
}

TEST(Parking, DeadlineAnswersWithAFinalPoll) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("never");
    Waiter w;
    auto start = Clock::now();
    w.park(p, w.long_poll(ch, p.stamp(ch), 300ms));
    auto a = w.answer();
    long long waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(w.answered_at() - start).count();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->status, 200);
    EXPECT_NE(a->body.find("\"ready\":false"), std::string::npos);
    EXPECT_GE(waited, 290);
    EXPECT_LT(waited, 1000);
    EXPECT_EQ(w.reads.load(), 1) << "only the final poll";
}

TEST(Parking, APollThatThrowsAnswersItsErrorAndTheRequestLeaves) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("throws");
    Waiter w;
    http::LongPoll lp = w.long_poll(ch, p.stamp(ch), 10s);
    lp.poll = [](bool) -> std::optional<http::Response> {
        throw Error(Code::epoch_mismatch, "the pouch's event log has another epoch");
    };
    w.park(p, std::move(lp));
    redis.publish(ch, "1");
    auto a = w.answer();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->status, 409);
    EXPECT_NE(a->body.find("\"code\":\"epoch_mismatch\""), std::string::npos);
    EXPECT_EQ(p.parked(), 0u);
}

TEST(Parking, OneOwnerParksAtMostItsLimitAndTheNextIsRefusedAtOnce) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2, 3);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("owner");
    Waiter held[3], over, other;
    for (auto& w : held) {
        http::LongPoll lp = w.long_poll(ch, p.stamp(ch), 10s);
        lp.owner = "account-a";
        w.park(p, std::move(lp));
    }
    EXPECT_EQ(p.parked(), 3u);
    http::LongPoll lp = over.long_poll(ch, p.stamp(ch), 10s);
    lp.owner = "account-a";
    auto start = Clock::now();
    over.park(p, std::move(lp));
    auto a = over.answer(1s);
    ASSERT_TRUE(a);
    EXPECT_LT(ms_since(start), 100);
    EXPECT_EQ(a->status, 429);
    EXPECT_NE(a->body.find("\"code\":\"rate_limited\""), std::string::npos);
    bool retry_after = false;
    for (const auto& [k, v] : a->headers)
        retry_after = retry_after || (k == "Retry-After" && v == "5");
    EXPECT_TRUE(retry_after);
    EXPECT_EQ(over.reads.load(), 0) << "refused before any poll";
    // Another owner is not limited by the first one's waiters.
    http::LongPoll lp2 = other.long_poll(ch, p.stamp(ch), 10s);
    lp2.owner = "account-b";
    other.park(p, std::move(lp2));
    EXPECT_EQ(p.parked(), 4u);
    p.stop();
    for (auto& w : held) EXPECT_TRUE(w.answered());
}

TEST(Parking, AnsweredRequestsFreeTheirOwnersPlaces) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2, 1);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    Client redis(url);
    const std::string ch = unique_channel("owner-free");
    Waiter first, second;
    http::LongPoll lp = first.long_poll(ch, p.stamp(ch), 10s);
    lp.owner = "account-a";
    first.park(p, std::move(lp));
    first.ready = true;
    redis.publish(ch, "1");
    ASSERT_TRUE(says_ready(first.answer()));
    http::LongPoll lp2 = second.long_poll(ch, p.stamp(ch), 10s);
    lp2.owner = "account-a";
    second.park(p, std::move(lp2));
    EXPECT_EQ(p.parked(), 1u) << "the first answer freed its place";
    p.stop();
}

TEST(Parking, ASecondRequestWithTheExclusiveKeyAnswersTheFirstWithItsError) {
    REQUIRE_REDIS();
    http::Parking p(url, kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("exclusive");
    Waiter first, second;
    http::LongPoll lp = first.long_poll(ch, p.stamp(ch), 10s);
    lp.exclusive_key = "login-1";
    lp.superseded =
        Error(Code::slow_down, "another wait took its place").with_header("Retry-After", "5");
    first.park(p, std::move(lp));
    http::LongPoll lp2 = second.long_poll(ch, p.stamp(ch), 10s);
    lp2.exclusive_key = "login-1";
    second.park(p, std::move(lp2));
    auto a = first.answer(2s);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->status, 429);
    EXPECT_NE(a->body.find("\"code\":\"slow_down\""), std::string::npos);
    EXPECT_EQ(first.reads.load(), 0);
    EXPECT_FALSE(second.answered()) << "the newer one stays parked";
    EXPECT_EQ(p.parked(), 1u);
    p.stop();
    EXPECT_TRUE(second.answered());
}

TEST(Parking, UnreachableRedisFallsBackToRereadingEverySecond) {
    LocalSocket closed;  // bound, never listening: connections are refused
    http::Parking p(closed.url(), kPattern, 2);
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(p.connected());
    const std::string ch = unique_channel("down");
    Waiter w;
    auto start = Clock::now();
    w.park(p, w.long_poll(ch, p.stamp(ch), 2500ms));
    auto a = w.answer();
    long long waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(w.answered_at() - start).count();
    ASSERT_TRUE(a);
    EXPECT_GE(waited, 2490);
    EXPECT_LT(waited, 3500);
    EXPECT_GE(w.reads.load(), 3) << "two fallback re-reads and the final one";
    EXPECT_LE(w.reads.load(), 4);
}

TEST(Parking, WithoutRedisAReadyRequestIsAnsweredWithinAboutASecond) {
    LocalSocket closed;
    http::Parking p(closed.url(), kPattern, 2);
    const std::string ch = unique_channel("down-ready");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    auto start = Clock::now();
    w.ready = true;
    EXPECT_TRUE(says_ready(w.answer()));
    EXPECT_LT(ms_since(start), 1500);
}

TEST(Parking, DeliversMessagesFromTheSubscriberConnection) {
    FakeSubscriberServer server;
    http::Parking p(server.url(), kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("fake");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    w.ready = true;
    std::this_thread::sleep_for(100ms);
    auto start = Clock::now();
    server.publish(ch);
    EXPECT_TRUE(says_ready(w.answer()));
    EXPECT_LT(ms_since(start), 500);
}

TEST(Parking, LostConnectionHasEveryParkedRequestReread) {
    FakeSubscriberServer server;
    http::Parking p(server.url(), kPattern, 2);
    ASSERT_TRUE(eventually([&] { return p.connected(); }));
    const std::string ch = unique_channel("drop");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(w.reads.load(), 0);
    server.ack = false;  // the reconnect will hang on its PSUBSCRIBE answer
    auto start = Clock::now();
    server.drop();
    EXPECT_TRUE(eventually([&] { return w.reads.load() >= 1; }, 1s))
        << "a message may have been lost: parked requests must re-read";
    EXPECT_LT(ms_since(start), 1000);
    EXPECT_TRUE(eventually([&] { return !p.connected(); }, 1s));
    server.ack = true;
    p.stop();  // answers w while it is alive
    EXPECT_TRUE(w.answered());
}

TEST(Parking, ReconnectHasEveryParkedRequestReread) {
    FakeSubscriberServer server;
    server.ack = false;  // connected only once the test lets PSUBSCRIBE succeed
    http::Parking p(server.url(), kPattern, 2);
    ASSERT_TRUE(eventually([&] { return server.connections() == 1; }));
    EXPECT_FALSE(p.connected());
    const std::string ch = unique_channel("reconnect");
    Waiter w;
    w.park(p, w.long_poll(ch, p.stamp(ch), 10s));
    w.ready = true;
    std::this_thread::sleep_for(50ms);
    auto start = Clock::now();
    server.ack = true;
    // Disconnected, so the fallback re-reads within a second; the reconnect must be sooner.
    EXPECT_TRUE(says_ready(w.answer()));
    EXPECT_LT(ms_since(start), 900);
    EXPECT_TRUE(p.connected());
}

TEST(Parking, ServerThatNeverAnswersPsubscribeDoesNotHangShutdown) {
    FakeSubscriberServer server;
    server.ack = false;
    auto start = Clock::now();
    {
        http::Parking p(server.url(), kPattern, 2);
        ASSERT_TRUE(eventually([&] { return server.connections() == 1; }));
    }  // destructor: stop() and join
    EXPECT_LT(ms_since(start), 4000);
    server.ack = true;
}

TEST(Parking, StopAnswersEveryParkedRequestAtOnceAndLaterOnesInline) {
    LocalSocket closed;
    http::Parking p(closed.url(), kPattern, 2);
    const std::string ch = unique_channel("stop");
    Waiter a, b;
    a.park(p, a.long_poll(ch, p.stamp(ch), 30s));
    b.park(p, b.long_poll(ch, p.stamp(ch), 30s));
    std::this_thread::sleep_for(100ms);
    auto start = Clock::now();
    p.stop();
    EXPECT_LT(ms_since(start), 500);
    auto ra = a.answer(0ms);
    ASSERT_TRUE(ra);
    EXPECT_EQ(ra->status, 200);
    EXPECT_NE(ra->body.find("\"ready\":false"), std::string::npos);
    EXPECT_TRUE(b.answer(0ms));
    EXPECT_EQ(p.parked(), 0u);

    Waiter late;
    late.park(p, late.long_poll(ch, p.stamp(ch), 30s));
    EXPECT_TRUE(late.answer(0ms)) << "after stop() park() answers before returning";
}
