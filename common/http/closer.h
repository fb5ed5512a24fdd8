// closer.h -- ends answered FastCGI connections off the request threads (those not kept for
// another request: the peer did not ask to keep it, input was left, or stopping). libfcgi's close
// shuts the socket for writing and then blocks (up to 2 s) reading until nginx closes its
// side, so that input we never read cannot turn the close into a reset that loses the
// answer. Done inline that is one nginx round trip per answer on the answering thread: with
// the parking's few poll threads, 10,000 wake-ups queued for ~300 ms (docs/PERFORMANCE.md).
// The Closer does the same shutdown and drain for every connection on one epoll thread.
//
// Invariant: a handed-over fd is closed exactly once, after EOF, a read error or 2 s.
#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

namespace pouch::http {

class Closer {
  public:
    // The process's closer; its thread lives as long as the process (never joined, so no
    // answer waits on a destructor at exit). If epoll_create1 fails there is no thread and
    // hand_over closes each fd at once, as libfcgi would after its wait.
    static Closer& instance();

    // Takes over `fd`, whose answer is written: shutdown(SHUT_WR), then reads and discards
    // until EOF, an error or 2 s, then closes it.
    void hand_over(int fd);

  private:
    using Clock = std::chrono::steady_clock;
    Closer();
    void run();
    void close_fd(int fd);  // mu_ held

    int ep_ = -1;
    mutable std::mutex mu_;
    std::unordered_map<int, Clock::time_point> deadline_;        // by fd
    std::deque<std::pair<Clock::time_point, int>> by_deadline_;  // in hand-over order
};

}  // namespace pouch::http
