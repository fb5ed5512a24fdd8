// hash_pool.h -- a bounded pool for password hashing (decisions §13). Argon2id takes 64 MiB and
// tens of milliseconds per hash, so hashes run only on the pool's own threads (POUCH_ARGON2_
// PARALLEL of them, at a lower CPU priority than the request threads), behind a queue of at
// most 4x that many jobs. A request whose hash cannot start within the start timeout, or that
// finds the queue full, is answered 503 unavailable with Retry-After at once instead of
// holding a request thread: a flood of logins can neither exhaust memory nor make the other
// account endpoints wait.
//
// Invariant: a job is either still queued (and may be withdrawn by its submitter at the
// timeout) or taken by exactly one pool thread, which runs it to the end; a submitter whose
// job was taken always waits for its result.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pouch::auth {

class HashPool {
public:
    struct Stats {
        size_t running = 0, queued = 0;
        unsigned long long refused = 0;  // answered 503: queue full or not started in time
    };

    HashPool(int threads, size_t max_queue, std::chrono::milliseconds start_timeout);
    ~HashPool();
    HashPool(const HashPool&) = delete;
    HashPool& operator=(const HashPool&) = delete;

    // Runs `job` on a pool thread and returns when it has finished; rethrows what it threw.
    // Throws Error 503 unavailable (Retry-After: 2) when the queue is full or the job has
    // not started within the start timeout (it is then withdrawn and never runs).
    void run(std::function<void()> job);

    Stats stats() const;

private:
    struct Job {
        std::function<void()> fn;
        enum class State { queued, running, done } state = State::queued;
        std::exception_ptr error;
    };

    void thread_main();

    const size_t max_queue_;
    const std::chrono::milliseconds start_timeout_;
    mutable std::mutex mu_;
    std::condition_variable work_cv_;  // a job was queued, or the pool stops
    std::condition_variable done_cv_;  // a job changed state
    std::deque<std::shared_ptr<Job>> queue_;
    size_t running_ = 0;
    unsigned long long refused_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace pouch::auth
