// waiters.cpp -- the epoll loop of Waiters (waiters.h). One thread owns every connection;
// answers are framed by Content-Length, as nginx sends the handlers' answers.
#include "tools/loadgen/waiters.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "tools/loadgen/client.h"

namespace loadgen {

Waiters::Waiters(int port, std::vector<std::string> requests, double rate_per_s)
    : port_(port),
      requests_(std::move(requests)),
      rate_(rate_per_s > 0 ? rate_per_s : 1e9),
      conns_(requests_.size()),
      answers_(requests_.size()) {
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    thread_ = std::thread([this] { run(); });
}

Waiters::~Waiters() {
    finish(0);
    if (ep_ >= 0) close(ep_);
}

void Waiters::finish(double until_ms) {
    while (done_.load() < requests_.size() && now_ms() < until_ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (auto& c : conns_) {
        if (c.fd >= 0) close(c.fd);
        c.fd = -1;
    }
}

void Waiters::fail(size_t i) {
    Conn& c = conns_[i];
    if (c.fd >= 0) {
        epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
        close(c.fd);
        c.fd = -1;
    }
    if (c.off < requests_[i].size()) ++sent_;  // counted as sent: it never will be
    c.off = requests_[i].size();
    answers_[i].status = -1;
    answers_[i].at_ms = now_ms();
    ++done_;
}

bool Waiters::read_answer(size_t i) {
    Conn& c = conns_[i];
    char tmp[16384];
    bool closed = false;  // the peer closed: what buf holds is all there will be
    for (;;) {
        ssize_t n = recv(c.fd, tmp, sizeof tmp, 0);
        if (n > 0) {
            c.buf.append(tmp, static_cast<size_t>(n));
            continue;
        }
        if (n == 0) {
            closed = true;
            break;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        if (errno == EINTR) continue;
        fail(i);  // reset
        return true;
    }
    // An answer followed by the server's close (Connection: close) is still an answer.
    size_t head_end = c.buf.find("\r\n\r\n");
    size_t need = std::string::npos;
    if (head_end != std::string::npos) {
        std::string head = c.buf.substr(0, head_end);
        std::transform(head.begin(), head.end(), head.begin(), ::tolower);
        auto cl = head.find("content-length:");
        if (cl == std::string::npos) {
            fail(i);
            return true;
        }
        need = head_end + 4 + std::strtoul(head.c_str() + cl + 15, nullptr, 10);
    }
    if (need == std::string::npos || c.buf.size() < need) {
        if (!closed) return false;
        fail(i);  // closed before a whole answer
        return true;
    }
    Answer& a = answers_[i];
    a.at_ms = now_ms();
    a.status = std::atoi(c.buf.c_str() + 9);
    a.has_items = c.buf.find("\"seq\":", head_end) != std::string::npos;
    epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
    close(c.fd);
    c.fd = -1;
    c.buf.clear();
    c.buf.shrink_to_fit();
    ++done_;
    return true;
}

void Waiters::run() {
    size_t next = 0;
    const double t0 = now_ms();
    std::vector<epoll_event> evs(1024);
    while (!stop_.load()) {
        // Open the connections due by now, at most rate_ a second.
        size_t due =
            std::min(requests_.size(), static_cast<size_t>((now_ms() - t0) / 1000.0 * rate_) + 1);
        for (; next < due; ++next) {
            Conn& c = conns_[next];
            c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (c.fd < 0) {
                fail(next);
                continue;
            }
            int one = 1;
            setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(static_cast<uint16_t>(port_));
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (connect(c.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 &&
                errno != EINPROGRESS) {
                fail(next);
                continue;
            }
            epoll_event ev{};
            ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
            ev.data.u64 = next;
            if (epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev) != 0) fail(next);
        }
        int n = epoll_wait(ep_, evs.data(), static_cast<int>(evs.size()), 2);
        for (int k = 0; k < n; ++k) {
            size_t i = evs[static_cast<size_t>(k)].data.u64;
            Conn& c = conns_[i];
            if (c.fd < 0) continue;
            uint32_t e = evs[static_cast<size_t>(k)].events;
            if ((e & EPOLLOUT) && c.off < requests_[i].size()) {
                const std::string& r = requests_[i];
                ssize_t w = send(c.fd, r.data() + c.off, r.size() - c.off, MSG_NOSIGNAL);
                if (w < 0 && errno != EAGAIN) {
                    fail(i);
                    continue;
                }
                if (w > 0) c.off += static_cast<size_t>(w);
                if (c.off == r.size()) {
                    ++sent_;
                    epoll_event ev{};
                    ev.events = EPOLLIN | EPOLLRDHUP;
                    ev.data.u64 = i;
                    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
                }
            }
            if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
                if (c.off < requests_[i].size() && (e & (EPOLLHUP | EPOLLERR))) {
                    fail(i);
                    continue;
                }
                read_answer(i);
            }
        }
    }
}

}  // namespace loadgen
