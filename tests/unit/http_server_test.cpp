// http_server_test.cpp -- the FastCGI loop of a real handler binary (pouch-account), spoken
// to directly over its unix socket with a minimal FastCGI client: routing, the handler-side
// body limit (nginx is not in front here), query rejection, the envelope, and a graceful
// SIGTERM that finishes the request in flight and removes the socket.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/fcgi_tcp_client.h"

namespace {

namespace fs = std::filesystem;

fs::path bin_dir() {
    return fs::read_symlink("/proc/self/exe").parent_path();
}

using pouch::testing::FcgiParams;
using Reply = pouch::testing::FcgiReply;

// One FastCGI request on a fresh connection to the handler's socket.
Reply fcgi(const std::string& socket_path, const FcgiParams& params, const std::string& body = "") {
    return pouch::testing::fcgi_unix(socket_path, params, body);
}

FcgiParams get(const std::string& uri) {
    size_t q = uri.find('?');
    return {{"REQUEST_METHOD", "GET"},
            {"REQUEST_URI", uri},
            {"QUERY_STRING", q == std::string::npos ? "" : uri.substr(q + 1)},
            {"REQUEST_ID", "0123456789abcdef0123456789abcdef"}};
}

class HandlerProcess : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("pouch-fcgi-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        socket_ = (dir_ / "account.sock").string();
        pid_ = ::fork();
        if (pid_ == 0) {
            ::setenv("POUCH_SOCKET", socket_.c_str(), 1);
            // Unreachable database and Redis: these tests never need them.
            ::setenv("POUCH_DATABASE_URL", "postgresql://127.0.0.1:1/none?connect_timeout=1", 1);
            ::setenv("POUCH_REDIS_URL", "redis://127.0.0.1:1/0", 1);
            ::setenv("POUCH_THREADS", "2", 1);
            // One listener and one spare, whatever the machine's CPUs (connections.h).
            ::setenv("POUCH_LISTENERS", "1", 1);
            ::setenv("POUCH_LOG_LEVEL", "error", 1);
            std::string exe = (bin_dir() / "pouch-account").string();
            ::execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // The socket file appears at bind(), before listen(): ready means a connect works.
        bool ready = false;
        for (int i = 0; i < 200 && !ready; ++i) {
            int fd = pouch::testing::fcgi_unix_connect(socket_);
            ready = fd >= 0;
            if (ready) ::close(fd);
            if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        ASSERT_TRUE(ready) << "handler did not start listening on its socket";
    }
    void TearDown() override {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        fs::remove_all(dir_);
    }
    int stop_and_wait() {
        ::kill(pid_, SIGTERM);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return status;
    }

    fs::path dir_;
    std::string socket_;
    pid_t pid_ = -1;
};

TEST_F(HandlerProcess, UnknownPathIsJson404WithRequestId) {
    Reply r = fcgi(socket_, get("/v1/nothing"));
    EXPECT_EQ(r.status, 404);
    EXPECT_NE(r.head.find("Content-Type: application/json"), std::string::npos);
    EXPECT_NE(r.head.find("X-Request-Id: 0123456789abcdef0123456789abcdef"), std::string::npos);
    EXPECT_EQ(r.body, R"({"ok":false,"error":{"code":"not_found","message":"no such endpoint"},)"
                      R"("meta":{"request_id":"0123456789abcdef0123456789abcdef"}})");
}

TEST_F(HandlerProcess, WrongMethodIs405WithAllow) {
    auto p = get("/v1/account/signup");
    Reply r = fcgi(socket_, p);
    EXPECT_EQ(r.status, 405);
    EXPECT_NE(r.head.find("Allow: POST"), std::string::npos);
}

// nginx passes a request by its decoded, normalized path (DOCUMENT_URI); the handler routes
// the raw one only when the two agree, so a raw path cannot reach a route nginx did not pass.
TEST_F(HandlerProcess, RawPathThatIsNotNginxsNormalizedPathIs404) {
    auto smuggled = get("/metrics/account/..%2F..%2Fv1%2Fhealth");
    smuggled.push_back({"DOCUMENT_URI", "/v1/health"});
    Reply r = fcgi(socket_, smuggled);
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body.find("pouch_"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("code":"not_found")"), std::string::npos) << r.body;

    auto same = get("/metrics/account");
    same.push_back({"DOCUMENT_URI", "/metrics/account"});
    // A request is counted just after its answer is sent: the count of the one above may land
    // a moment after this request is answered, so it is asked for again (up to 2 s).
    for (int i = 0; i < 100; ++i) {
        r = fcgi(socket_, same);
        if (r.status != 200 || r.body.find("pouch_http_requests_total") != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.body.find("pouch_http_requests_total"), std::string::npos) << r.body;
}

TEST_F(HandlerProcess, HandlerEnforcesTheBodyLimitItself) {
    std::string body(64 * 1024 + 1, 'x');
    Reply r = fcgi(socket_,
                   {{"REQUEST_METHOD", "POST"},
                    {"REQUEST_URI", "/v1/account/login"},
                    {"CONTENT_TYPE", "application/json"},
                    {"CONTENT_LENGTH", std::to_string(body.size())}},
                   body);
    EXPECT_EQ(r.status, 413);
    EXPECT_NE(r.body.find(R"("code":"payload_too_large")"), std::string::npos);
}

TEST_F(HandlerProcess, BodyLongerThanItsContentLengthClaimIsStillCapped) {
    // A peer that lies about CONTENT_LENGTH cannot push more than the limit into memory.
    std::string body(64 * 1024 + 10, 'x');
    Reply r = fcgi(socket_,
                   {{"REQUEST_METHOD", "POST"},
                    {"REQUEST_URI", "/v1/account/login"},
                    {"CONTENT_TYPE", "application/json"},
                    {"CONTENT_LENGTH", "10"}},
                   body);
    EXPECT_EQ(r.status, 413);
}

TEST_F(HandlerProcess, NonJsonContentTypeIs415) {
    Reply r = fcgi(socket_,
                   {{"REQUEST_METHOD", "POST"},
                    {"REQUEST_URI", "/v1/account/login"},
                    {"CONTENT_TYPE", "text/plain"},
                    {"CONTENT_LENGTH", "2"}},
                   "{}");
    EXPECT_EQ(r.status, 415);
    EXPECT_NE(r.body.find(R"("code":"unsupported_media_type")"), std::string::npos);
}

TEST_F(HandlerProcess, RepeatedQueryParameterIs400WithField) {
    Reply r = fcgi(socket_, get("/v1/account/roster?limit=1&limit=2"));
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find(R"("field":"?limit")"), std::string::npos);
}

TEST_F(HandlerProcess, DatabaseDownIs503Unavailable) {
    auto p = get("/v1/account");
    p.emplace_back("HTTP_AUTHORIZATION", "Bearer svc_ws_" + std::string(43, 'A'));
    Reply r = fcgi(socket_, p);
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.body.find(R"("code":"unavailable")"), std::string::npos);
    EXPECT_NE(r.head.find("Retry-After: 1"), std::string::npos);
}

// One request on a kept connection (FCGI_KEEP_CONN, as nginx sends with fastcgi_keep_conn on):
// the answer, with the connection left open.
Reply kept(int fd, const FcgiParams& params) {
    Reply r;
    if (pouch::testing::fcgi_send(
            fd, pouch::testing::fcgi_begin(params, true) + pouch::testing::fcgi_stdin(""), r))
        pouch::testing::fcgi_read_reply(fd, r, true);
    return r;
}

// `n` connections to the handler with the client's timeouts; fewer if one failed to connect.
std::vector<int> connect_many(const std::string& socket_path, int n) {
    std::vector<int> fds;
    for (int i = 0; i < n; ++i) {
        int fd = pouch::testing::fcgi_unix_connect(socket_path);
        if (fd < 0) break;
        pouch::testing::fcgi_set_timeouts(fd);
        fds.push_back(fd);
    }
    return fds;
}

TEST_F(HandlerProcess, KeptConnectionsCarryManyRequestsAndIdleOnesHoldNoThread) {
    // Twice as many kept connections as worker threads (2), each used in turn, several times:
    // an idle kept connection must not hold a thread, or the third would never be answered.
    std::vector<int> fds = connect_many(socket_, 4);
    ASSERT_EQ(fds.size(), 4u);
    for (int round = 0; round < 3; ++round)
        for (int fd : fds) {
            Reply r = kept(fd, get("/v1/nothing"));
            EXPECT_TRUE(r.answered) << "round " << round;
            EXPECT_FALSE(r.timed_out);
            EXPECT_EQ(r.status, 404);
        }
    // A request without FCGI_KEEP_CONN is answered and its connection closed, beside them.
    EXPECT_EQ(fcgi(socket_, get("/v1/nothing")).status, 404);
    // A body the route never reads (415) is drained, and the connection carries the next one.
    Reply r;
    ASSERT_TRUE(
        pouch::testing::fcgi_send(fds[0],
                                  pouch::testing::fcgi_begin({{"REQUEST_METHOD", "POST"},
                                                              {"REQUEST_URI", "/v1/account/login"},
                                                              {"CONTENT_TYPE", "text/plain"},
                                                              {"CONTENT_LENGTH", "5"}},
                                                             true) +
                                      pouch::testing::fcgi_stdin("hello"),
                                  r));
    pouch::testing::fcgi_read_reply(fds[0], r, true);
    EXPECT_EQ(r.status, 415);
    EXPECT_EQ(kept(fds[0], get("/v1/nothing")).status, 404);
    // SIGTERM with idle kept connections: they are closed (EOF) and the handler exits.
    int status = stop_and_wait();
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    for (int fd : fds) {
        char c;
        EXPECT_EQ(::read(fd, &c, 1), 0);
        ::close(fd);
    }
}

TEST_F(HandlerProcess, ManyReadyConnectionsAreAllServed) {
    // Sixteen kept connections whose requests are all sent before any answer is read: the
    // listener finds them queued in the epoll set and serves them one after another (two
    // workers, one of them listening); each is answered on its own connection, and each
    // connection then carries a second request.
    std::vector<int> fds = connect_many(socket_, 16);
    ASSERT_EQ(fds.size(), 16u);
    for (int round = 0; round < 2; ++round) {
        for (size_t i = 0; i < fds.size(); ++i) {
            Reply sent;
            ASSERT_TRUE(pouch::testing::fcgi_send(
                fds[i],
                pouch::testing::fcgi_begin(get("/v1/nothing-" + std::to_string(i)), true) +
                    pouch::testing::fcgi_stdin(""),
                sent));
        }
        for (size_t i = 0; i < fds.size(); ++i) {
            Reply r;
            pouch::testing::fcgi_read_reply(fds[i], r, true);
            EXPECT_TRUE(r.answered) << "connection " << i << ", round " << round;
            EXPECT_FALSE(r.timed_out);
            EXPECT_EQ(r.status, 404);
        }
    }
    for (int fd : fds) ::close(fd);
}

// Opens a connection and sends a login whose 3-byte body has not come yet (fcgi_begin's
// `keep` asks for FCGI_KEEP_CONN), then waits until a worker is reading it. -1 on failure.
int start_login_without_body(const std::string& socket_path, bool keep) {
    int fd = pouch::testing::fcgi_unix_connect(socket_path);
    if (fd < 0) return -1;
    pouch::testing::fcgi_set_timeouts(fd);
    Reply r;
    if (!pouch::testing::fcgi_send(fd,
                                   pouch::testing::fcgi_begin({{"REQUEST_METHOD", "POST"},
                                                               {"REQUEST_URI", "/v1/account/login"},
                                                               {"CONTENT_TYPE", "application/json"},
                                                               {"CONTENT_LENGTH", "3"}},
                                                              keep),
                                   r)) {
        ::close(fd);
        return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a worker is now reading
    return fd;
}

TEST_F(HandlerProcess, ARequestThatBlocksDoesNotHoldTheOthersBack) {
    // A login whose body never comes holds the one listener in its read; the spare is woken
    // (by the watchdog: nothing here touches the database) and answers the other connections
    // meanwhile, promptly and in turn; the stuck request is answered once its body arrives.
    int stuck = start_login_without_body(socket_, true);
    ASSERT_GE(stuck, 0);
    Reply r;
    std::vector<int> fds = connect_many(socket_, 4);
    ASSERT_EQ(fds.size(), 4u);
    auto start = std::chrono::steady_clock::now();
    for (int round = 0; round < 5; ++round)
        for (int fd : fds) EXPECT_EQ(kept(fd, get("/v1/nothing")).status, 404);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // 20 answers; a listener stuck behind the login would leave them waiting for it (10 s).
    EXPECT_LT(ms, 2000.0);
    ASSERT_TRUE(pouch::testing::fcgi_send(stuck, pouch::testing::fcgi_stdin("{x}"), r));
    pouch::testing::fcgi_read_reply(stuck, r, true);
    EXPECT_TRUE(r.answered);
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find(R"("code":"invalid_json")"), std::string::npos) << r.body;
    // Both workers are free again: the stuck connection carries another request.
    EXPECT_EQ(kept(stuck, get("/v1/nothing")).status, 404);
    ::close(stuck);
    for (int fd : fds) ::close(fd);
}

TEST_F(HandlerProcess, SigtermExitsCleanlyAndRemovesTheSocket) {
    EXPECT_EQ(fcgi(socket_, get("/v1/nothing")).status, 404);
    int status = stop_and_wait();
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_FALSE(fs::exists(socket_));
}

TEST_F(HandlerProcess, SigtermLetsTheRequestInFlightFinish) {
    // A login whose body arrives late is in flight when SIGTERM lands; it must still get its
    // answer (here 400: the body is not JSON) rather than a dropped connection.
    int fd = start_login_without_body(socket_, false);
    ASSERT_GE(fd, 0);
    Reply r;
    ::kill(pid_, SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_TRUE(pouch::testing::fcgi_send(fd, pouch::testing::fcgi_stdin("{x}"), r));
    pouch::testing::fcgi_read_reply(fd, r);
    ::close(fd);
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(r.answered);
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find(R"("code":"invalid_json")"), std::string::npos) << r.body;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
