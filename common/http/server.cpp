// server.cpp -- the FastCGI loop every handler runs (libfcgi 2.4, one request per thread;
// a long-poll is handed to Parking and answered later from its poll threads).
// Signals: SIGTERM/SIGINT are blocked in every thread and taken by sigwait() in main; idle
// workers are then woken out of accept() with SIGUSR2 (FCGI_FAIL_ACCEPT_ON_INTR), busy ones
// finish their request first. The listen socket is systemd's (LISTEN_FDS -> fd 3, or fd 0
// with StandardInput=socket) or a unix socket of our own at POUCH_SOCKET.
#include "common/http/server.h"

#include <fcgiapp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/http/closer.h"
#include "common/json/parse.h"
#include "common/log/log.h"
#include "common/metrics/metrics.h"

namespace pouch::http {

namespace {

std::atomic<bool> g_stopping{false};
std::atomic<int> g_alive{0};  // workers not yet returned

void on_wake(int) {}  // only interrupts accept()

struct FcgxRequest {
    FCGX_Request req;
    explicit FcgxRequest(int fd) { FCGX_InitRequest(&req, fd, FCGI_FAIL_ACCEPT_ON_INTR); }
    ~FcgxRequest() { FCGX_Free(&req, 1); }
};

std::string param(FCGX_Request& r, const char* name) {
    const char* v = FCGX_GetParam(name, r.envp);
    return v ? v : "";
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool is_json_content_type(const std::string& ct, const std::string& want) {
    // "application/json" optionally followed by "; charset=utf-8" (decisions §3).
    std::string v = lower(ct);
    v.erase(std::remove(v.begin(), v.end(), ' '), v.end());
    if (v == want) return true;
    return want == "application/json" && v == "application/json;charset=utf-8";
}

void fill_request(FCGX_Request& fr, Request& r) {
    r.method = param(fr, "REQUEST_METHOD");
    std::string uri = param(fr, "REQUEST_URI");
    size_t q = uri.find('?');
    r.path = q == std::string::npos ? uri : uri.substr(0, q);
    r.document_uri = param(fr, "DOCUMENT_URI");
    if (r.path.empty()) r.path = r.document_uri;
    r.raw_query = param(fr, "QUERY_STRING");
    r.request_id = param(fr, "REQUEST_ID");
    if (r.request_id.empty()) {  // nginx always sends one; direct FastCGI tests may not
        static std::atomic<unsigned long long> seq{0};
        r.request_id = "local-" + std::to_string(getpid()) + "-" + std::to_string(++seq);
    }
    r.remote_addr = param(fr, "REMOTE_ADDR");
    r.content_type = param(fr, "CONTENT_TYPE");
    std::string cl = param(fr, "CONTENT_LENGTH");
    if (!cl.empty()) {
        char* end = nullptr;
        long long n = std::strtoll(cl.c_str(), &end, 10);
        r.content_length = (*end == '\0' && n >= 0) ? n : -1;
    }
    for (char** e = fr.envp; e && *e; ++e) {
        if (std::strncmp(*e, "HTTP_", 5) != 0) continue;
        const char* eq = std::strchr(*e, '=');
        if (!eq) continue;
        std::string name(static_cast<const char*>(*e) + 5, eq);
        for (auto& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
        auto [it, fresh] = r.headers.emplace(name, eq + 1);
        if (!fresh) it->second += std::string(", ") + (eq + 1);
    }
}

// Reads the whole body up to `limit` bytes; 413 past it.
void read_json_body(FCGX_Request& fr, Request& r, size_t limit) {
    if (r.content_length > static_cast<long long>(limit))
        throw Error(Code::payload_too_large,
                    "request body exceeds " + std::to_string(limit) + " bytes");
    std::string body;
    // Room for the parser's padding too, so the in-place parse never copies the body.
    if (r.content_length > 0)
        body.reserve(static_cast<size_t>(r.content_length) + json::kRequestPadding);
    char buf[65536];
    while (true) {
        int n = FCGX_GetStr(buf, sizeof buf, fr.in);
        if (n <= 0) break;
        body.append(buf, static_cast<size_t>(n));
        if (body.size() > limit)
            throw Error(Code::payload_too_large,
                        "request body exceeds " + std::to_string(limit) + " bytes");
    }
    r.body = std::move(body);
}

void prepare_body(FCGX_Request& fr, Request& r, const Route& route) {
    const RouteOptions& o = route.options;
    if (o.body == BodyKind::none) return;
    bool has_body = r.content_length > 0;
    if (has_body && !is_json_content_type(r.content_type, o.content_type))
        throw Error(Code::unsupported_media_type, "Content-Type must be " + o.content_type);
    if (o.body == BodyKind::json) {
        read_json_body(fr, r, o.body_limit);
        return;
    }
    if (r.content_length > static_cast<long long>(o.body_limit))
        throw Error(Code::payload_too_large,
                    "request body exceeds " + std::to_string(o.body_limit) + " bytes");
    auto total = std::make_shared<size_t>(0);
    size_t limit = o.body_limit;
    r.read_body = [&fr, total, limit](char* buf, size_t n) -> size_t {
        int got = FCGX_GetStr(buf, static_cast<int>(std::min<size_t>(n, 1 << 20)), fr.in);
        if (got <= 0) return 0;
        *total += static_cast<size_t>(got);
        if (*total > limit)
            throw Error(Code::payload_too_large,
                        "request body exceeds " + std::to_string(limit) + " bytes");
        return static_cast<size_t>(got);
    };
}

// Routes and runs the request. A route that waits leaves its LongPoll in `parked` (when the
// group parks; otherwise the wait is answered at once with a final poll).
Rendered dispatch(FCGX_Request& fr, Request& r, Router& router, Services& services,
                  std::string& error_detail, std::shared_ptr<LongPoll>& parked) {
    return render_guarded(r.request_id, error_detail, [&] {
        fill_request(fr, r);
        r.log_path = router.loggable_path(r.path);
        // nginx picked its location (and so its limits, and whether to pass at all) by the
        // normalized, decoded path; routing the raw one when they differ (%2F, dot segments,
        // doubled slashes) would reach routes nginx never passes, e.g. the metrics through the
        // public server as /metrics/<group>/..%2F..%2Fv1%2Fhealth. No API path needs either.
        if (!r.document_uri.empty() && r.document_uri != r.path)
            throw Error(Code::not_found, "no such endpoint");
        Router::Match m = router.match(r.method, r.path);
        r.route = m.route->pattern;
        r.params = std::move(m.params);
        r.query = parse_query(r.raw_query);
        if (!m.route->options.query && !r.query.empty())
            throw validation_failed("?" + r.query.begin()->first, "unknown query parameter");
        prepare_body(fr, r, *m.route);
        Response resp = m.route->fn(r, services);
        if (!resp.long_poll) return resp;
        if (services.parking) {
            parked = std::move(resp.long_poll);
            return Response{};
        }
        return *resp.long_poll->poll(true);
    });
}

void log_request(const Request& r, int status, std::chrono::steady_clock::time_point start,
                 const std::string& error_detail) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    metrics::observe_request(r.route, r.method, status, ms / 1000.0);
    log::Level level = status >= 500 ? log::Level::error : log::Level::info;
    if (error_detail.empty()) {
        log::write(level, "request",
                   {{"request_id", r.request_id},
                    {"method", r.method},
                    {"path", r.log_path.empty() ? r.path : r.log_path},
                    {"status", status},
                    {"duration_ms", ms}});
    } else {
        log::write(level, "request",
                   {{"request_id", r.request_id},
                    {"method", r.method},
                    {"path", r.log_path.empty() ? r.path : r.log_path},
                    {"status", status},
                    {"duration_ms", ms},
                    {"error", error_detail}});
    }
}

void reply(FCGX_Request& fr, const Rendered& out) {
    std::string bytes = to_cgi(out);
    FCGX_PutStr(bytes.data(), static_cast<int>(bytes.size()), fr.out);
    // libfcgi would shut the connection down and wait for nginx to close it, here (closer.h):
    // detached, FCGX_Finish_r writes the end of the answer and closes its fd without the
    // wait, and the Closer drains and closes our duplicate of it.
    int keep = -1;
    if (fr.ipcFd >= 0 && !fr.keepConnection) {
        keep = ::dup(fr.ipcFd);
        if (keep >= 0) FCGX_Detach(&fr);
    }
    FCGX_Finish_r(&fr);
    if (keep >= 0) Closer::instance().hand_over(keep);
}

struct Worker {
    std::thread thread;
    std::atomic<bool> in_accept{false};  // only idle workers are nudged at shutdown
};

void worker(Worker& self, int listen_fd, Router& router, Services& services) {
    // Shared: a parked request's FcgxRequest lives on in its Finish until it is answered,
    // and the worker accepts the next request into a fresh one.
    auto holder = std::make_shared<FcgxRequest>(listen_fd);
    while (!g_stopping.load()) {
        self.in_accept = true;
        int rc = FCGX_Accept_r(&holder->req);
        self.in_accept = false;
        if (rc < 0) break;
        auto start = std::chrono::steady_clock::now();
        auto r = std::make_shared<Request>();
        std::string error_detail;
        std::shared_ptr<LongPoll> parked;
        Rendered out = dispatch(holder->req, *r, router, services, error_detail, parked);
        if (parked) {
            std::string request_id = r->request_id;
            services.parking->park(
                std::move(*parked), request_id,
                [holder, r, start](const Rendered& answer, const std::string& detail) {
                    log_request(*r, answer.status, start, detail);
                    reply(holder->req, answer);
                });
            holder = std::make_shared<FcgxRequest>(listen_fd);
            continue;
        }
        // Counted before the answer leaves, so a client that reads the metrics right after its
        // answer sees its request (http_server_test; a race otherwise, seen under load).
        log_request(*r, out.status, start, error_detail);
        reply(holder->req, out);
    }
    --g_alive;
}

bool is_socket(int fd) {
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

// A TCP listen socket, ours or systemd's, is served only with libfcgi's allow-list of web
// server addresses: any peer that reaches the port could otherwise crash the handler
// (decisions §11). The one check of that list; POUCH_LISTEN asks it before binding, so our own
// setting fails as bad configuration (exit 2), a socket systemd handed over as a failed start.
constexpr char kAllowListNeeded[] =
    "needs FCGI_WEB_SERVER_ADDRS (the nginx addresses allowed to connect, comma-separated IPv4)";

bool has_allow_list() {
    const char* allow = std::getenv("FCGI_WEB_SERVER_ADDRS");
    return allow && *allow;
}

int require_allow_list_on_tcp(int fd) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    bool tcp = getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 &&
               (a.ss_family == AF_INET || a.ss_family == AF_INET6);
    if (tcp && !has_allow_list())
        throw std::runtime_error(std::string("a TCP listen socket ") + kAllowListNeeded);
    return fd;
}

// The listen fd: systemd's, a TCP socket of our own (POUCH_LISTEN, for handler hosts behind
// a remote nginx; libfcgi accepts only the FCGI_WEB_SERVER_ADDRS peers on it), or our own
// unix socket.
int open_listen_socket(const config::Config& config) {
    const char* fds = std::getenv("LISTEN_FDS");
    const char* pid = std::getenv("LISTEN_PID");
    if (fds && pid && std::atoi(fds) >= 1 && std::atoi(pid) == getpid())
        return require_allow_list_on_tcp(3);
    if (!config.listen.empty()) {
        if (!has_allow_list())
            throw config::BadConfig(std::string("POUCH_LISTEN ") + kAllowListNeeded);
        // libfcgi parses "host:port" (empty host: every address) and sets SO_REUSEADDR, so a
        // restarted handler binds again at once.
        int fd = FCGX_OpenSocket(config.listen.c_str(), 1024);
        if (fd < 0) throw std::runtime_error("cannot listen on " + config.listen);
        return fd;
    }
    if (config.socket_path.empty()) {
        if (is_socket(0)) return require_allow_list_on_tcp(0);
        throw std::runtime_error("no listen socket: set POUCH_SOCKET or run under systemd");
    }
    ::unlink(config.socket_path.c_str());  // a stale socket from a previous run
    int fd = FCGX_OpenSocket(config.socket_path.c_str(), 1024);
    if (fd < 0) throw std::runtime_error("cannot listen on " + config.socket_path);
    ::chmod(config.socket_path.c_str(), 0660);
    return fd;
}

}  // namespace

int serve(const std::string& group, Router& router, Services& services) {
    // Blocked before FCGX_Init installs libfcgi's own SIGTERM handler: a stop signal that
    // arrives during start-up then stays pending for the sigwait below, instead of being
    // swallowed by that handler (workers would quit, main would wait forever).
    sigset_t stop_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGUSR1);                   // libfcgi's own graceful-stop signal
    pthread_sigmask(SIG_BLOCK, &stop_set, nullptr);  // inherited by every worker
    if (FCGX_Init() != 0) {
        log::error("FCGX_Init failed", {{"group", group}});
        return 1;
    }
    int listen_fd = open_listen_socket(services.config);

    // SIGUSR2 wakes idle workers out of accept(); no SA_RESTART so accept() fails with EINTR.
    struct sigaction sa {};
    sa.sa_handler = on_wake;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < services.config.threads; ++i) {
        workers.push_back(std::make_unique<Worker>());
        Worker& w = *workers.back();
        ++g_alive;
        w.thread =
            std::thread(worker, std::ref(w), listen_fd, std::ref(router), std::ref(services));
    }
    log::info("serving",
              {{"threads", services.config.threads},
               {"socket", !services.config.listen.empty()       ? services.config.listen
                          : services.config.socket_path.empty() ? std::string("systemd")
                                                                : services.config.socket_path}});

    int sig = 0;
    sigwait(&stop_set, &sig);
    log::info("stopping", {{"signal", sig}});
    g_stopping = true;
    FCGX_ShutdownPending();
    // Nudge idle workers out of accept() until all have left; a busy worker finishes its
    // request (its reads must not see EINTR) and then sees g_stopping.
    // Threads are joined only after the nudging ends, so no signal targets a joined thread.
    while (g_alive.load() > 0) {
        for (auto& w : workers)
            if (w->in_accept.load()) pthread_kill(w->thread.native_handle(), SIGUSR2);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& w : workers) w->thread.join();
    // No more requests come in; parked long-polls answer at once (as at their deadline).
    if (services.parking) services.parking->stop();
    if (!services.config.socket_path.empty() && listen_fd > 2)
        ::unlink(services.config.socket_path.c_str());
    log::info("stopped");
    return 0;
}

}  // namespace pouch::http
