// parking.h -- long-polls that hold neither a handler thread nor a database connection while
// they wait (decisions §6 token `wait`, §5.2 events `wait`). A route that finds nothing
// returns a LongPoll; the server parks the request here and its worker thread goes back to
// accept(). A small pool of poll threads re-reads a parked request when a Redis message
// arrives on its channel, at its deadline, after a Redis reconnect, and about once a second
// while Redis is down (the database fallback), and answers it through `Finish`.
//
// No wake-up is lost: every message bumps the channel's stamp before parked requests are
// looked up, and park() re-polls at once when the stamp moved since the route's read.
// Bounded (decisions §13): per owner (an account) at most max_per_owner requests are parked,
// and one per exclusive key (a login request).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/http/response.h"
#include "common/redis/notifier.h"

namespace pouch::http {

class Parking : private redis::Notifier::Listener {
  public:
    using Clock = std::chrono::steady_clock;
    // Writes the answer to the parked request and releases it; `error_detail` is set for
    // 5xx answers (for the log). Called exactly once, on a poll thread.
    using Finish = std::function<void(const Rendered& answer, const std::string& error_detail)>;

    // `threads` poll threads (each poll leases its own database connection, so more than the
    // pool size gains nothing). At most `max_per_owner` requests of one LongPoll::owner are
    // parked at once; the next is answered 429 rate_limited (Retry-After 5) without parking.
    // `pattern` is the PSUBSCRIBE pattern of the channels it waits on (common/wakeup).
    Parking(const std::string& redis_url, const std::string& pattern, int threads,
            size_t max_per_owner = 256);
    ~Parking();
    Parking(const Parking&) = delete;
    Parking& operator=(const Parking&) = delete;

    // Changes whenever a message for `channel` arrives or messages may have been lost.
    // Routes read it before the read whose emptiness makes them park (LongPoll::seen).
    std::uint64_t stamp(const std::string& channel) const;

    // Takes over a request. After stop() it is answered at once with a final poll. Over its
    // owner's limit it is answered at once with 429; a request with the exclusive key of one
    // already parked supersedes that one, which is answered with its `superseded` error.
    void park(LongPoll poll, std::string request_id, Finish finish);

    // Answers every parked request with a final poll, waits for the answers to be written
    // and ends the threads. Idempotent.
    void stop();

    size_t parked() const;
    bool connected() const { return notifier_->connected(); }

  private:
    struct Entry {
        LongPoll lp;
        std::string request_id;
        Finish finish;
        bool queued = false;             // in queue_
        bool running = false;            // a poll thread is polling it
        bool dirty = false;              // woken while running: poll again
        bool expired = false;            // deadline passed: the next poll is final
        std::optional<Rendered> forced;  // answer without polling (superseded)
    };
    struct Shared {  // one poll's answer for requests of one share key
        std::uint64_t stamp;
        std::optional<Response> answer;
    };

    void on_message(const std::string& channel) override;
    void on_resync() override;

    void enqueue(Entry* e);  // mu_ held
    void poll_thread();
    void timer_thread();
    // Polls `e` (final or not); true when it produced an answer, which is then in `out`.
    bool poll_once(Entry& e, bool final, Rendered& out, std::string& error_detail);
    std::optional<Response> shared_poll(Entry& e);
    void remove(Entry* e);  // mu_ held: drops it from the indexes

    static constexpr size_t kStampBuckets = 4096;
    std::array<std::atomic<std::uint64_t>, kStampBuckets> stamps_{};
    std::atomic<std::uint64_t> resyncs_{0};

    mutable std::mutex mu_;
    std::condition_variable work_cv_;   // queue_ has work, or the threads must end
    std::condition_variable timer_cv_;  // the earliest deadline changed, or stop
    std::condition_variable idle_cv_;   // an entry was answered (stop() waits for none left)
    std::unordered_map<Entry*, std::unique_ptr<Entry>> entries_;
    std::multimap<std::string, Entry*> by_channel_;
    std::multimap<Clock::time_point, Entry*> by_deadline_;
    std::deque<Entry*> queue_;
    const size_t max_per_owner_;
    std::unordered_map<std::string, size_t> per_owner_;     // parked requests per owner
    std::unordered_map<std::string, Entry*> by_exclusive_;  // the parked request per key
    bool stopping_ = false;                                 // every poll is final from now on
    bool ended_ = false;                                    // threads gone: park() answers inline

    std::mutex shared_mu_;
    std::unordered_map<std::string, Shared> shared_;

    std::vector<std::thread> pollers_;
    std::thread timer_;
    std::unique_ptr<redis::Notifier> notifier_;  // last: destroyed first, it calls into us
};

}  // namespace pouch::http
