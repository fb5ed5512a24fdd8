// connections.h -- the FastCGI connections of a handler process, and which of them hold a
// thread. nginx keeps its connections to a handler open between requests (fastcgi_keep_conn
// on, `keepalive` in each upstream: docs/DECISIONS.md, issue 25). A connection is served by
// a worker thread only while it carries a request; idle between requests, and while its
// request is parked (parking.h), it holds none. The workers share one epoll set (the listen
// socket and every idle connection, each armed one-shot) and each waits in it for one event
// at a time: the worker that wakes for a connection reads, answers and hands it back, with
// no other thread in between.
//
// Invariant: an fd is in idle_ exactly while it is armed in the epoll set and no thread owns
// it; next() takes it out (the caller owns it), release() puts it back and re-arms it, and
// only its owner closes it (or stop(), for an idle one). An event is therefore never stale
// before stop(); after it, a claimed fd is looked at (peeked) before it is served, and one
// with nothing to read goes back.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_set>

namespace pouch::http {

class Connections {
  public:
    // Takes the listen socket (made non-blocking; systemd's or our own). `allow` is
    // FCGI_WEB_SERVER_ADDRS: on a TCP socket only those IPv4 peers (an IPv4-mapped IPv6 peer
    // by its IPv4 address) are accepted, as libfcgi does; empty allows every peer.
    Connections(int listen_fd, std::string allow);
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

  private:
    void accept_all();
    bool allowed(int fd) const;
    void arm(int fd, int op);

    int listen_fd_;
    std::string allow_;
    int ep_ = -1;
    int wake_fd_ = -1;  // eventfd, readable once stopping: every waiting worker returns
    std::atomic<bool> stopping_{false};
    std::mutex mu_;
    std::unordered_set<int> idle_;
};

}  // namespace pouch::http
