// waiters.h -- many parked long-polls held by one thread: non-blocking connections on one
// epoll set, opened at a bounded rate (the stack's accept queues hold ~1,000), each sending
// one request and recording when and how its answer came. Used by `pouch-loadgen wait`
// (10,000 waiting devices) and `pouch-loadgen roundtrip` (the idle waiters beside B).
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace loadgen {

class Waiters {
  public:
    struct Answer {
        int status = 0;          // HTTP status; -1 connection failed or closed without an answer
        double at_ms = -1;       // now_ms() when the answer was complete (or failed)
        bool has_items = false;  // the body lists at least one event ("seq":)
    };

    // requests[i] is sent on connection i; at most rate_per_s connections opened a second.
    Waiters(int port, std::vector<std::string> requests, double rate_per_s);
    ~Waiters();
    Waiters(const Waiters&) = delete;
    Waiters& operator=(const Waiters&) = delete;

    // True once every request was sent (or its connection failed).
    bool all_sent() const { return sent_.load() >= requests_.size(); }
    size_t answered() const { return done_.load(); }
    size_t size() const { return requests_.size(); }
    // Waits until every waiter has an answer or `until_ms` (now_ms clock) passes, then stops
    // the thread; unanswered connections are closed (status stays 0).
    void finish(double until_ms);
    // The answers, valid after finish().
    const std::vector<Answer>& answers() const { return answers_; }

  private:
    struct Conn {
        int fd = -1;
        size_t off = 0;  // bytes of the request sent
        std::string buf;
    };
    void run();
    void fail(size_t i);
    bool read_answer(size_t i);  // false while incomplete

    const int port_;
    const std::vector<std::string> requests_;
    const double rate_;
    std::vector<Conn> conns_;
    std::vector<Answer> answers_;
    std::atomic<size_t> sent_{0}, done_{0};
    std::atomic<bool> stop_{false};
    int ep_ = -1;
    std::thread thread_;
};

}  // namespace loadgen
