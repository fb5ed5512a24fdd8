// hash_pool_test.cpp -- the bounded password-hashing pool (common/auth/hash_pool.h): jobs run
// on the pool's threads, at most `threads` at once; a full queue and a job not started within
// the start timeout answer 503 unavailable with Retry-After at once, and a withdrawn job never
// runs.
#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/auth/hash_pool.h"
#include "common/http/error.h"

namespace pouch::auth {
namespace {

using namespace std::chrono_literals;

// A gate the test opens: jobs that wait on it keep their pool thread busy.
struct Gate {
    std::promise<void> open;
    std::shared_future<void> opened = open.get_future().share();
};

TEST(HashPool, RunsTheJobAndReturnsAfterIt) {
    HashPool pool(2, 8, 2000ms);
    int x = 0;
    pool.run([&] { x = 42; });
    EXPECT_EQ(x, 42);
}

TEST(HashPool, RethrowsWhatTheJobThrew) {
    HashPool pool(1, 4, 2000ms);
    EXPECT_THROW(pool.run([] { throw std::runtime_error("boom"); }), std::runtime_error);
}

TEST(HashPool, RunsAtMostThreadsJobsAtOnce) {
    // Every job holds its thread until the gate opens: once two run, the other four must be
    // queued, not running, however the threads are scheduled.
    HashPool pool(2, 8, 5000ms);
    Gate gate;
    std::atomic<int> now{0}, peak{0};
    std::vector<std::thread> callers;
    for (int i = 0; i < 6; ++i)
        callers.emplace_back([&] {
            pool.run([&] {
                int n = ++now;
                for (int p = peak.load(); n > p && !peak.compare_exchange_weak(p, n);) {
                }
                gate.opened.wait();
                --now;
            });
        });
    auto deadline = std::chrono::steady_clock::now() + 2s;
    while ((pool.stats().running < 2 || pool.stats().queued < 4 || now.load() < 2) &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    HashPool::Stats held = pool.stats();
    EXPECT_EQ(held.running, 2u);
    EXPECT_EQ(held.queued, 4u);
    EXPECT_EQ(now.load(), 2);
    gate.open.set_value();
    for (auto& t : callers) t.join();
    EXPECT_EQ(peak.load(), 2);
    EXPECT_EQ(pool.stats().refused, 0u);
}

TEST(HashPool, FullQueueAnswers503WithRetryAfterAtOnce) {
    HashPool pool(1, 1, 5000ms);
    Gate gate;
    std::thread busy([&] { pool.run([&] { gate.opened.wait(); }); });
    while (pool.stats().running == 0) std::this_thread::sleep_for(1ms);
    std::thread queued([&] { pool.run([] {}); });
    while (pool.stats().queued == 0) std::this_thread::sleep_for(1ms);

    auto start = std::chrono::steady_clock::now();
    try {
        pool.run([] {});
        FAIL() << "expected 503";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 503);
        EXPECT_EQ(e.code, "unavailable");
        ASSERT_EQ(e.headers.size(), 1u);
        EXPECT_EQ(e.headers[0], (std::pair<std::string, std::string>{"Retry-After", "2"}));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
    gate.open.set_value();
    busy.join();
    queued.join();
    EXPECT_EQ(pool.stats().refused, 1u);
}

TEST(HashPool, JobNotStartedInTimeIsRefusedAndNeverRuns) {
    HashPool pool(1, 4, 100ms);
    Gate gate;
    std::thread busy([&] { pool.run([&] { gate.opened.wait(); }); });
    while (pool.stats().running == 0) std::this_thread::sleep_for(1ms);
    std::atomic<bool> ran{false};
    try {
        pool.run([&] { ran = true; });
        FAIL() << "expected 503";
    } catch (const pouch::Error& e) {
        EXPECT_EQ(pouch::http::status_of(e.fault), 503);
        EXPECT_EQ(e.code, "unavailable");
        ASSERT_EQ(e.headers.size(), 1u);
        EXPECT_EQ(e.headers[0], (std::pair<std::string, std::string>{"Retry-After", "2"}));
    }
    EXPECT_EQ(pool.stats().refused, 1u);
    EXPECT_EQ(pool.stats().queued, 0u);  // withdrawn
    gate.open.set_value();
    busy.join();
    pool.run([] {});  // the pool is free again and the withdrawn job did not run before it
    EXPECT_FALSE(ran.load());
}

TEST(HashPool, AStartedJobIsWaitedForPastTheStartTimeout) {
    HashPool pool(1, 4, 50ms);
    bool done = false;
    pool.run([&] {
        std::this_thread::sleep_for(200ms);
        done = true;
    });
    EXPECT_TRUE(done);
}

}  // namespace
}  // namespace pouch::auth
