// http_listen_tcp_test.cpp -- a real handler binary (pouch-account) as a handler host serves
// it (issue 18): FastCGI on TCP (POUCH_LISTEN), only to the peers of libfcgi's
// FCGI_WEB_SERVER_ADDRS, never without that list; and its metrics route counting the requests
// it answered, by route pattern.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/unit/fcgi_tcp_client.h"
#include "tests/unit/local_socket.h"

namespace {

namespace fs = std::filesystem;
using pouch::testing::fcgi_tcp_get;
using pouch::testing::FcgiReply;

// A free loopback port: bound by LocalSocket, then released for the handler to take.
int free_port() {
    pouch::testing::LocalSocket s;
    return s.port;
}

class TcpHandler : public ::testing::Test {
  protected:
    // Starts pouch-account on 127.0.0.1:port_ with FCGI_WEB_SERVER_ADDRS = allow (unset when
    // empty). Returns false if it never accepted a connection.
    // With `inherited`, the handler gets its TCP socket as fd 0 (systemd's StandardInput=socket)
    // instead of opening it (POUCH_LISTEN).
    bool start(const std::string& allow, bool inherited = false) {
        port_ = free_port();
        pid_ = ::fork();
        if (pid_ == 0) {
            std::string listen = "127.0.0.1:" + std::to_string(port_);
            if (inherited) {
                int fd = ::socket(AF_INET, SOCK_STREAM, 0);
                int one = 1;
                ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
                sockaddr_in a{};
                a.sin_family = AF_INET;
                a.sin_port = htons(static_cast<uint16_t>(port_));
                a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
                    ::listen(fd, 16) != 0)
                    ::_exit(126);
                ::dup2(fd, 0);
                ::close(fd);
                ::unsetenv("POUCH_LISTEN");
            } else {
                ::setenv("POUCH_LISTEN", listen.c_str(), 1);
            }
            if (allow.empty())
                ::unsetenv("FCGI_WEB_SERVER_ADDRS");
            else
                ::setenv("FCGI_WEB_SERVER_ADDRS", allow.c_str(), 1);
            ::unsetenv("POUCH_SOCKET");
            // Unreachable database and Redis: these tests never need them.
            ::setenv("POUCH_DATABASE_URL", "postgresql://127.0.0.1:1/none?connect_timeout=1", 1);
            ::setenv("POUCH_REDIS_URL", "redis://127.0.0.1:1/0", 1);
            ::setenv("POUCH_THREADS", "2", 1);
            ::setenv("POUCH_LOG_LEVEL", "error", 1);
            std::string exe =
                (fs::read_symlink("/proc/self/exe").parent_path() / "pouch-account").string();
            ::execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        for (int i = 0; i < 200; ++i) {
            if (exited()) return false;
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(static_cast<uint16_t>(port_));
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
            ::close(fd);
            if (ok) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        return false;
    }
    bool exited() {
        int status = 0;
        pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            status_ = status;
            pid_ = -1;
            return true;
        }
        return false;
    }
    void TearDown() override {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    int port_ = 0;
    pid_t pid_ = -1;
    int status_ = 0;
};

}  // namespace

TEST_F(TcpHandler, ServesFastCgiOnTcpToAnAllowedPeer) {
    ASSERT_TRUE(start("127.0.0.1"));
    FcgiReply r = fcgi_tcp_get(port_, "/v1/nothing");
    EXPECT_TRUE(r.answered);
    EXPECT_EQ(r.status, 404);
    EXPECT_NE(r.body.find(R"("code":"not_found")"), std::string::npos);
}

TEST_F(TcpHandler, RefusesAPeerOutsideFcgiWebServerAddrs) {
    ASSERT_TRUE(start("192.0.2.10"));  // nginx lives elsewhere; 127.0.0.1 is not it
    FcgiReply r = fcgi_tcp_get(port_, "/v1/nothing");
    EXPECT_FALSE(r.answered);
    EXPECT_FALSE(r.timed_out) << "the connection must be closed, not left hanging";
    EXPECT_EQ(r.status, 0);
    EXPECT_FALSE(exited()) << "the handler must keep serving others";
}

TEST_F(TcpHandler, WillNotListenOnTcpWithoutAnAllowList) {
    EXPECT_FALSE(start(""));
    for (int i = 0; i < 100 && pid_ > 0 && !exited(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(pid_, -1) << "the handler is still running";
    ASSERT_TRUE(WIFEXITED(status_));
    EXPECT_EQ(WEXITSTATUS(status_), 2);  // bad configuration
}

TEST_F(TcpHandler, MetricsCountAnsweredRequestsByRoutePattern) {
    ASSERT_TRUE(start("127.0.0.1"));
    ASSERT_EQ(fcgi_tcp_get(port_, "/v1/nothing").status, 404);
    ASSERT_EQ(fcgi_tcp_get(port_, "/v1/also/nothing").status, 404);
    ASSERT_EQ(fcgi_tcp_get(port_, "/v1/account/signup").status, 405);
    // A request is counted as it is logged, just after its answer went out: scrape until all
    // three are in (or a second has passed).
    const std::string not_found =
        "pouch_http_requests_total{group=\"account\",method=\"GET\","
        "route=\"unmatched\",status=\"404\"} 2\n";
    const std::string not_allowed =
        "pouch_http_requests_total{group=\"account\",method=\"GET\","
        "route=\"unmatched\",status=\"405\"} 1\n";
    FcgiReply m;
    for (int i = 0; i < 50; ++i) {
        m = fcgi_tcp_get(port_, "/metrics/account/127.0.0.1");
        if (m.body.find(not_found) != std::string::npos &&
            m.body.find(not_allowed) != std::string::npos)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(m.status, 200);
    EXPECT_NE(m.head.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
    // Unknown paths share one series: a client cannot add series by inventing paths.
    EXPECT_NE(m.body.find("pouch_http_requests_total{group=\"account\",method=\"GET\","
                          "route=\"unmatched\",status=\"404\"} 2\n"),
              std::string::npos)
        << m.body;
    EXPECT_NE(m.body.find("pouch_http_requests_total{group=\"account\",method=\"GET\","
                          "route=\"unmatched\",status=\"405\"} 1\n"),
              std::string::npos);
    EXPECT_EQ(m.body.find("/v1/also/nothing"), std::string::npos);
    EXPECT_NE(m.body.find("pouch_db_pool_in_use{group=\"account\"} 0\n"), std::string::npos);
    EXPECT_NE(m.body.find("pouch_argon2_queued{group=\"account\"} 0\n"), std::string::npos);
    EXPECT_NE(m.body.find("# TYPE pouch_argon2_refused_total counter"), std::string::npos);
    // Another group's name is not this process's metrics.
    EXPECT_EQ(fcgi_tcp_get(port_, "/metrics/sync").status, 404);
}

TEST_F(TcpHandler, ServesASystemdTcpSocketToAnAllowedPeer) {
    ASSERT_TRUE(start("127.0.0.1", true));
    FcgiReply r = fcgi_tcp_get(port_, "/v1/nothing");
    EXPECT_EQ(r.status, 404);
}

TEST_F(TcpHandler, RefusesASystemdTcpSocketWithoutAnAllowList) {
    start("", true);  // it may accept a connect before it checks: the exit is what counts
    for (int i = 0; i < 100 && pid_ > 0 && !exited(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(pid_, -1) << "the handler is still running";
    ASSERT_TRUE(WIFEXITED(status_));
    EXPECT_EQ(WEXITSTATUS(status_), 1);  // startup failed
}
