// connections.h -- the FastCGI connections of a handler process, and which of them hold a
// thread. nginx keeps its connections to a handler open between requests (fastcgi_keep_conn
// on, `keepalive` in each upstream: docs/DECISIONS.md, issue 25). A connection is served by
// a worker thread only while it carries a request; idle between requests, and while its
// request is parked (parking.h), it holds none. The workers share one epoll set (the listen
// socket and every idle connection, each armed one-shot) and take one event at a time from
// it: the worker that takes a connection reads, answers and hands it back, with no other
// thread in between.
//
// Few listeners (issue 25): at most `listeners` workers wait in the epoll set at once (by
// default one fewer than the CPUs, at least one); the others sleep apart as spares. A worker
// that answers a cheap request comes back and finds the requests that arrived meanwhile
// still queued in the set, served without a thread woken for each (with a listener per
// thread, every request woke a sleeping one: a third of the handler's CPU per request). A
// request that blocks (PostgreSQL, a slow client's body) must not hold the rest back, so a
// watchdog thread wakes a spare to listen once nobody has listened for `stall`; and a worker
// about to block on purpose says so first (about_to_block()), which does the same at once.
//
// Invariant: an fd is in idle_ exactly while it is armed in the epoll set and no thread owns
// it; next() takes it out (the caller owns it), release() puts it back and re-arms it, and
// only its owner closes it (or stop(), for an idle one). An event is therefore never stale
// before stop(); after it, a claimed fd is looked at (peeked) before it is served, and one
// with nothing to read goes back.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

namespace pouch::http {

class Connections {
  public:
    // Takes the listen socket (made non-blocking; systemd's or our own). `allow` is
    // FCGI_WEB_SERVER_ADDRS: on a TCP socket only those IPv4 peers (an IPv4-mapped IPv6 peer
    // by its IPv4 address) are accepted, as libfcgi does; empty allows every peer.
    Connections(int listen_fd, std::string allow, int listeners = 0,
                std::chrono::microseconds stall = std::chrono::milliseconds(1));
    ~Connections();
    Connections(const Connections&) = delete;
    Connections& operator=(const Connections&) = delete;

    // What a worker waits for next.
    enum class Next { serve, again, stop };
    // Waits for one event; `serve` gives an owned connection with input in `fd`. `again` when
    // the event was handled here (accepts, a peer that closed, a stale event, an interrupted
    // wait). `stop` once stopping and no idle connection is left to serve.
    Next next(int& fd);

    // An owned connection whose answer is complete and whose input ended: idle again (armed),
    // or closed when stopping.
    void release(int fd);
    // An owned connection leaves the set; the caller closes it (or hands it to the Closer).
    void forget(int fd);

    // Stop: no more accepts (the listen socket stays open, for systemd's next process), idle
    // connections with nothing to read are closed, and waiting workers wake. Called again
    // until every worker has returned (workers serve what is already pending, and close).
    void stop();
    bool stopping() const { return stopping_.load(); }

    // The calling worker may block for a while (a database round trip): when nobody else
    // listens, a spare is woken to listen in its place now rather than at the watchdog's
    // next look. Cheap; any thread may call it.
    void about_to_block();

    // Counters for tests and metrics: spares woken by the watchdog and by about_to_block().
    std::uint64_t spares_woken() const { return spares_woken_.load(); }

  private:
    void accept_all();
    bool allowed(int fd) const;
    void arm(int fd, int op);
    bool wait_turn();  // false once stopping
    void watchdog();
    void wake_spare(std::unique_lock<std::mutex>& lock);

    int listen_fd_;
    std::string allow_;
    int ep_ = -1;
    int wake_fd_ = -1;  // eventfd, readable once stopping: every waiting worker returns
    std::atomic<bool> stopping_{false};
    std::mutex mu_;
    std::unordered_set<int> idle_;

    // Under mu_: workers in epoll_wait, spares asleep, entries into epoll_wait so far (the
    // watchdog's sign of life), workers serving.
    int listeners_max_;
    std::chrono::microseconds stall_;
    int listening_ = 0;
    int spares_ = 0;
    std::uint64_t entries_ = 0;
    bool watchdog_asleep_ = false;
    bool quit_ = false;
    std::condition_variable spare_cv_;
    std::condition_variable watchdog_cv_;
    std::atomic<std::uint64_t> spares_woken_{0};
    std::thread watchdog_;
};

}  // namespace pouch::http
