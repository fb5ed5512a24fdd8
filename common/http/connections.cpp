// connections.cpp -- the shared epoll set of a handler's FastCGI connections (connections.h).
// Every fd is armed EPOLLONESHOT, so one event wakes one worker and the fd stays quiet until
// it is re-armed; the listen socket is non-blocking, so a worker woken for it accepts what is
// queued and goes back. At most listeners_max_ workers wait in the set at once; the rest are
// spares, woken by the watchdog or about_to_block() only when nobody listens (connections.h).
#include "common/http/connections.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "common/log/log.h"

namespace pouch::http {

namespace {

constexpr int kAcceptBatch = 64;  // accepts per wake-up, then the listen socket is re-armed
// The watchdog looks every `stall` while requests come in, and sleeps until the next one once
// someone has been listening for this many looks in a row.
constexpr int kQuietLooks = 200;

int default_listeners() {
    unsigned n = std::thread::hardware_concurrency();
    return n > 2 ? static_cast<int>(n) - 1 : 1;
}

// The peer has input (a request), has closed, or neither yet.
enum class Input { ready, closed, none };

Input peek(int fd) {
    char c;
    ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return Input::ready;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Input::none;
    return Input::closed;
}

// libfcgi's ClientAddrOK: `list` is comma-separated IPv4 addresses, compared as inet_addr
// parses them.
bool listed(in_addr_t addr, const std::string& list) {
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        if (inet_addr(list.substr(start, end - start).c_str()) == addr) return true;
        start = end + 1;
    }
    return false;
}

}  // namespace

Connections::Connections(int listen_fd, std::string allow, int listeners,
                         std::chrono::microseconds stall)
    : listen_fd_(listen_fd),
      allow_(std::move(allow)),
      listeners_max_(listeners > 0 ? listeners : default_listeners()),
      stall_(stall) {
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ep_ < 0 || wake_fd_ < 0)
        throw std::runtime_error(std::string("epoll/eventfd: ") + std::strerror(errno));
    int fl = fcntl(listen_fd_, F_GETFL);
    if (fl < 0 || fcntl(listen_fd_, F_SETFL, fl | O_NONBLOCK) < 0)
        throw std::runtime_error(std::string("listen socket: ") + std::strerror(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;  // level-triggered and never read: once stopping, every wait returns
    ev.data.fd = wake_fd_;
    if (epoll_ctl(ep_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0)
        throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
    arm(listen_fd_, EPOLL_CTL_ADD);
    watchdog_ = std::thread([this] { watchdog(); });
}

Connections::~Connections() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
    }
    watchdog_cv_.notify_all();
    watchdog_.join();
    for (int fd : idle_) ::close(fd);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    if (ep_ >= 0) ::close(ep_);
}

void Connections::arm(int fd, int op) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.fd = fd;
    epoll_ctl(ep_, op, fd, &ev);
}

bool Connections::allowed(int fd) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return false;
    if (a.ss_family == AF_UNIX) return true;
    int one = 1;  // answers are written whole; no reason to wait for an ACK
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // An idle kept connection from a web server host that vanished is found and closed.
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    if (allow_.empty()) return true;
    if (a.ss_family == AF_INET)
        return listed(reinterpret_cast<const sockaddr_in&>(a).sin_addr.s_addr, allow_);
    if (a.ss_family == AF_INET6) {  // only an IPv4-mapped peer can be in an IPv4 list
        const in6_addr& v6 = reinterpret_cast<const sockaddr_in6&>(a).sin6_addr;
        if (!IN6_IS_ADDR_V4MAPPED(&v6)) return false;
        in_addr_t v4;
        std::memcpy(&v4, v6.s6_addr + 12, sizeof v4);
        return listed(v4, allow_);
    }
    return false;
}

void Connections::accept_all() {
    for (int i = 0; i < kAcceptBatch; ++i) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                // Still queued, so the listen socket is ready again at once: pause instead of
                // spinning (the connection waits in the backlog, as with a blocking accept).
                log::warn("accept", {{"error", std::strerror(errno)}});
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            break;
        }
        if (!allowed(fd)) {
            ::close(fd);
            continue;
        }
        std::lock_guard<std::mutex> lock(mu_);
        idle_.insert(fd);
        arm(fd, EPOLL_CTL_ADD);
    }
    if (!stopping_.load()) arm(listen_fd_, EPOLL_CTL_MOD);  // after stop() it is not in the set
}

void Connections::wake_spare(std::unique_lock<std::mutex>&) {
    ++spares_woken_;
    spare_cv_.notify_one();
}

// A spare is woken only for a request already waiting (the epoll set is readable): one woken
// for nothing would sleep again in the set, and wake a second time for the next request. One
// that arrives later, while this worker still waits, is the watchdog's.
void Connections::about_to_block() {
    std::unique_lock<std::mutex> lock(mu_);
    if (listening_ > 0 || spares_ == 0 || stopping_.load()) return;
    pollfd p{ep_, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) wake_spare(lock);
}

// Every `stall` while nobody listens: when nobody has entered the set since the last look
// (every worker not asleep as a spare is busy, and has been for a while), a spare is woken to
// listen.
void Connections::watchdog() {
    std::unique_lock<std::mutex> lock(mu_);
    int quiet = 0;
    while (!quit_) {
        if (listening_ > 0 || spares_ == 0) {
            if (++quiet > kQuietLooks) {
                watchdog_asleep_ = true;
                watchdog_cv_.wait(lock);
                watchdog_asleep_ = false;
                quiet = 0;
                continue;
            }
        } else {
            quiet = 0;
        }
        std::uint64_t seen = entries_;
        watchdog_cv_.wait_for(lock, stall_);
        if (!quit_ && listening_ == 0 && spares_ > 0 && entries_ == seen) wake_spare(lock);
    }
}

bool Connections::wait_turn() {
    std::unique_lock<std::mutex> lock(mu_);
    while (listening_ >= listeners_max_ && !stopping_.load()) {
        ++spares_;
        spare_cv_.wait(lock);
        --spares_;
    }
    if (stopping_.load() && idle_.empty()) return false;
    ++listening_;
    ++entries_;
    return true;
}

Connections::Next Connections::next(int& fd) {
    if (!wait_turn()) return Next::stop;
    epoll_event ev{};
    int n = epoll_wait(ep_, &ev, 1, -1);
    {
        std::lock_guard<std::mutex> lock(mu_);
        --listening_;
        // Nobody listens now: the watchdog, asleep after a quiet spell, keeps watch again.
        if (listening_ == 0 && watchdog_asleep_) watchdog_cv_.notify_one();
    }
    if (n <= 0) return Next::again;
    int got = ev.data.fd;
    if (got == wake_fd_) {
        // Stopping, with idle connections that had input left: the workers that took their
        // events serve them; this one waits a moment before it looks again.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return Next::again;
    }
    if (got == listen_fd_) {
        accept_all();
        return Next::again;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (idle_.erase(got) == 0) return Next::again;  // stale: owned or closed meanwhile
    }
    // An fd is armed one-shot and closed only by its owner, so outside stop() an event is
    // never stale and plain EPOLLIN means a request: no need to look first. A hang-up, an
    // error or stopping (stop() closes idle fds, whose numbers may be reused) is looked at.
    if (ev.events == EPOLLIN && !stopping_.load()) {
        fd = got;
        return Next::serve;
    }
    switch (peek(got)) {
        case Input::ready:
            fd = got;
            return Next::serve;
        case Input::none:
            release(got);
            return Next::again;
        case Input::closed:
            ::close(got);  // also leaves the epoll set
            return Next::again;
    }
    return Next::again;
}

void Connections::release(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) {
        ::close(fd);
        return;
    }
    idle_.insert(fd);
    arm(fd, EPOLL_CTL_MOD);
}

void Connections::forget(int fd) {
    epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
}

void Connections::stop() {
    if (!stopping_.exchange(true)) {
        epoll_ctl(ep_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        std::uint64_t one = 1;
        if (::write(wake_fd_, &one, sizeof one) < 0) {
        }  // cannot fail on a fresh eventfd
    }
    std::lock_guard<std::mutex> lock(mu_);
    spare_cv_.notify_all();  // spares serve what is pending too, then return
    for (auto it = idle_.begin(); it != idle_.end();) {
        if (peek(*it) == Input::ready) {  // a request came in: a worker serves it, then closes
            ++it;
            continue;
        }
        ::close(*it);
        it = idle_.erase(it);
    }
}

}  // namespace pouch::http
