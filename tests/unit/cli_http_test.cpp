// cli_http_test.cpp -- the CLI's HTTP client (clients/cli/http.h) against a server that answers
// on a loopback socket of the test: an answer is read whole up to kMaxAnswerBytes, and a server
// that sends more is cut off with a too_large HttpError instead of filling the memory.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "clients/cli/http.h"
#include "tests/unit/local_socket.h"

using namespace pouch::cli;

namespace {

// Accepts one connection, reads the request head, then answers 200 with a body of `size`
// bytes (as announced by Content-Length) and closes.
void answer_once(int listen_fd, size_t size) {
    int c = ::accept(listen_fd, nullptr, nullptr);
    if (c < 0) return;
    std::string head;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
    }
    std::string reply =
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        "Content-Length: " +
        std::to_string(size) + "\r\nConnection: close\r\n\r\n";
    ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    std::string block(1 << 20, 'x');
    for (size_t sent = 0; sent < size;) {
        size_t n = std::min(block.size(), size - sent);
        ssize_t w = ::send(c, block.data(), n, MSG_NOSIGNAL);
        if (w <= 0) break;  // the client stopped reading
        sent += static_cast<size_t>(w);
    }
    ::close(c);
}

HttpRequest get(const pouch::testing::LocalSocket& s) {
    HttpRequest r;
    r.url = "http://127.0.0.1:" + std::to_string(s.port) + "/blob";
    r.timeout_seconds = 30;
    return r;
}

}  // namespace

TEST(CliHttp, AnAnswerAtTheLimitIsReadWhole) {
    pouch::testing::LocalSocket s;
    ASSERT_EQ(::listen(s.fd, 1), 0);
    std::thread server(answer_once, s.fd, kMaxAnswerBytes);
    Http http;
    HttpResponse r = http.send(get(s));
    server.join();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body.size(), kMaxAnswerBytes);
}

TEST(CliHttp, AnAnswerOneBytePastTheLimitIsRefusedNotRead) {
    pouch::testing::LocalSocket s;
    ASSERT_EQ(::listen(s.fd, 1), 0);
    std::thread server(answer_once, s.fd, kMaxAnswerBytes + 1);
    Http http;
    try {
        http.send(get(s));
        ADD_FAILURE() << "an answer past the limit was read";
    } catch (const HttpError& e) {
        EXPECT_TRUE(e.too_large);
        EXPECT_FALSE(e.aborted);
        EXPECT_STREQ(e.what(), "the server's answer is larger than 64 MiB; it was not read");
    }
    server.join();
}
