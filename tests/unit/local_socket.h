// local_socket.h -- a TCP socket bound to a free loopback port, for tests that stand in for
// Redis: connects are refused until the test calls listen(), and the url names the port.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace pouch::testing {

struct LocalSocket {
    int fd = -1;
    int port = 0;
    LocalSocket() {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
            port = ntohs(a.sin_port);
    }
    ~LocalSocket() {
        if (fd >= 0) ::close(fd);
    }
    LocalSocket(const LocalSocket&) = delete;
    LocalSocket& operator=(const LocalSocket&) = delete;
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port); }
};

}  // namespace pouch::testing
