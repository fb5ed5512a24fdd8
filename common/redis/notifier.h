// notifier.h -- wake-ups for long-polls (decisions §6, §5.2): one Redis subscriber
// connection per process (PSUBSCRIBE pouch:*) and waiting threads sleeping on condition
// variables. A waiter registers first, then re-reads the database, then waits, so a
// PUBLISH between its read and its wait is not lost; after a reconnect every waiter is woken
// to re-read, and while Redis is down waits last at most a second (database fallback).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace pouch::redis {

class Notifier {
public:
    using Clock = std::chrono::steady_clock;

    explicit Notifier(std::string url);
    ~Notifier();
    Notifier(const Notifier&) = delete;
    Notifier& operator=(const Notifier&) = delete;

    class Subscription {
    public:
        ~Subscription();
        // Sleeps until a message for the channel arrives (or arrived since the last wait),
        // or `deadline`, or one second passes while Redis is unreachable. True if woken by
        // a message or a reconnect.
        bool wait_until(Clock::time_point deadline);

    private:
        friend class Notifier;
        Subscription(Notifier& n, std::string channel) : n_(n), channel_(std::move(channel)) {}
        Notifier& n_;
        std::string channel_;
        unsigned long long pending_ = 0;  // guarded by n_.mu_
    };

    // Registers interest in `channel` (e.g. "pouch:login:<id>") until the result is destroyed.
    std::unique_ptr<Subscription> subscribe(const std::string& channel);
    bool connected() const { return connected_.load(); }
    size_t waiters() const;

    // Waits for `ready()` (which re-reads the database) to become true, up to `deadline`.
    // Returns ready()'s last value.
    template <typename Ready>
    bool long_poll(const std::string& channel, Clock::time_point deadline, Ready ready) {
        auto sub = subscribe(channel);
        while (true) {
            if (ready()) return true;
            if (Clock::now() >= deadline || stopping_.load()) return false;
            sub->wait_until(deadline);
        }
    }

    // Wakes every waiter (shutdown: a long-poll answers "pending" at once).
    void stop();

private:
    void run();
    void deliver(const std::string& channel);
    void wake_all();

    std::string url_;
    std::atomic<bool> connected_{false};
    std::atomic<bool> stopping_{false};
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::multimap<std::string, Subscription*> subs_;
    std::thread thread_;
};

}  // namespace pouch::redis
