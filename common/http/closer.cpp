// closer.cpp -- the Closer's epoll loop (closer.h). Deadlines are handed out in increasing
// order, so a deque is their queue; a recycled fd number has a later deadline than the entry
// of its earlier use, which is how a stale entry is told apart.
#include "common/http/closer.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace pouch::http {

namespace {
constexpr auto kDrainLimit = std::chrono::seconds(2);  // libfcgi's own limit
}

Closer& Closer::instance() {
    static Closer* c = new Closer();  // intentionally never destroyed: see closer.h
    return *c;
}

// Without an epoll fd there is nothing to wait on (epoll_wait would fail at once, forever):
// no thread, and hand_over closes at once.
Closer::Closer() : ep_(epoll_create1(EPOLL_CLOEXEC)) {
    if (ep_ >= 0) std::thread([this] { run(); }).detach();
}

void Closer::hand_over(int fd) {
    if (fd < 0) return;
    ::shutdown(fd, SHUT_WR);
    std::lock_guard<std::mutex> g(mu_);
    auto deadline = Clock::now() + kDrainLimit;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    if (ep_ < 0 || epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ::close(fd);  // no epoll: close at once, as libfcgi would after its wait
        return;
    }
    deadline_[fd] = deadline;
    by_deadline_.emplace_back(deadline, fd);
}

void Closer::close_fd(int fd) {
    deadline_.erase(fd);
    ::close(fd);  // also leaves the epoll set
}

void Closer::run() {
    epoll_event evs[256];
    char trash[4096];
    for (;;) {
        int n = epoll_wait(ep_, evs, 256, 100);
        std::lock_guard<std::mutex> g(mu_);
        for (int i = 0; i < n; ++i) {
            int fd = evs[i].data.fd;
            if (!deadline_.count(fd)) continue;
            ssize_t r;
            while ((r = ::recv(fd, trash, sizeof trash, MSG_DONTWAIT)) > 0) {
            }
            if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) close_fd(fd);
        }
        auto now = Clock::now();
        while (!by_deadline_.empty() && by_deadline_.front().first <= now) {
            auto [when, fd] = by_deadline_.front();
            by_deadline_.pop_front();
            auto it = deadline_.find(fd);
            if (it != deadline_.end() && it->second == when) close_fd(fd);
        }
    }
}

}  // namespace pouch::http
