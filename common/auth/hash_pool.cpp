// hash_pool.cpp -- the bounded password-hashing pool of hash_pool.h: one mutex, a deque of
// jobs, and two condition variables (work for the pool threads, state changes for submitters).
#include "common/auth/hash_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "common/http/error.h"

namespace pouch::auth {

namespace {

Error busy(const char* why) {
    return Error(Code::unavailable,
                 std::string("password hashing is busy (") + why + "); retry shortly")
        .with_header("Retry-After", "2");
}

}  // namespace

HashPool::HashPool(int threads, size_t max_queue, std::chrono::milliseconds start_timeout)
    : max_queue_(max_queue), start_timeout_(start_timeout) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { thread_main(); });
}

HashPool::~HashPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
}

void HashPool::thread_main() {
    // Hashing yields the CPU to request threads: on a busy machine a login waits a little
    // longer, GET /v1/account does not (Linux applies nice per thread).
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
        work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left to run
        std::shared_ptr<Job> job = queue_.front();
        queue_.pop_front();
        job->state = Job::State::running;
        ++running_;
        done_cv_.notify_all();
        lock.unlock();
        try {
            job->fn();
        } catch (...) {
            job->error = std::current_exception();
        }
        lock.lock();
        job->state = Job::State::done;
        --running_;
        done_cv_.notify_all();
    }
}

void HashPool::run(std::function<void()> fn) {
    auto job = std::make_shared<Job>();
    job->fn = std::move(fn);
    std::unique_lock<std::mutex> lock(mu_);
    if (queue_.size() >= max_queue_) {
        ++refused_;
        throw busy("queue full");
    }
    queue_.push_back(job);
    work_cv_.notify_one();
    bool started =
        done_cv_.wait_for(lock, start_timeout_, [&] { return job->state != Job::State::queued; });
    if (!started) {
        // Still queued: withdraw it, so no pool thread ever runs it for nobody.
        queue_.erase(std::find(queue_.begin(), queue_.end(), job));
        ++refused_;
        throw busy("not started within the time limit");
    }
    done_cv_.wait(lock, [&] { return job->state == Job::State::done; });
    if (job->error) std::rethrow_exception(job->error);
}

HashPool::Stats HashPool::stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return Stats{running_, queue_.size(), refused_};
}

}  // namespace pouch::auth
