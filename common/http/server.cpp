// server.cpp -- the FastCGI loop every handler runs (libfcgi 2.4 for the protocol, one request
// at a time per worker thread; a long-poll is handed to Parking and answered later from its
// poll threads). nginx keeps its connections open between requests (fastcgi_keep_conn on);
// the workers share one epoll set of the listen socket and the idle connections
// (connections.h), so neither an idle connection nor a parked request holds a thread, and a
// request wakes exactly one worker, which reads it, answers and re-arms its connection.
// Signals: SIGTERM/SIGINT are blocked in every thread and taken by sigwait() in main; then no
// more connections are accepted (the listen socket stays open for systemd's next process),
// idle connections are closed, busy workers finish their request and close its connection,
// and parked requests are answered. The listen socket is systemd's (LISTEN_FDS -> fd 3, or
// fd 0 with StandardInput=socket) or a unix socket of our own at POUCH_SOCKET.
#include "common/http/server.h"

#include <fcgiapp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
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

#include "common/db/pool.h"
#include "common/http/closer.h"
#include "common/http/connections.h"
#include "common/http/receipts.h"
#include "common/json/parse.h"
#include "common/log/log.h"
#include "common/metrics/metrics.h"

namespace pouch::http {

namespace {

std::atomic<int> g_alive{0};           // workers not yet returned
Connections* g_connections = nullptr;  // serve()'s, for reply() on any thread
Receipts* g_receipts = nullptr;        // serve()'s: uploads whose body is still arriving
// Workers serve requests; those whose request is in receipt (receipts.h) wait on a client
// instead. When a request enters receipt and fewer than `g_base_workers` (POUCH_THREADS) are
// left serving, a new worker is started; when one leaves receipt and more than kSpareWorkers
// beyond that are serving, its worker returns. Workers therefore come and go only when uploads
// in progress grow or shrink by more than the spares, and each keeps its connections (its
// curl handle to the blob store, common/storage/s3_store.cpp) across requests.
int g_base_workers = 0;
constexpr int kSpareWorkers = 8;
thread_local bool t_in_receipt = false;  // this worker's request entered receipt

// Input left unread when an answer is written that may still be read (and discarded) so that
// the connection carries the next request; past it the connection is closed instead.
constexpr size_t kDrainLimit = 1 << 20;

// A request on a connection the caller owns. libfcgi never accepts (no listen socket): it
// reads the request from `fd`, and keepConnection set beforehand keeps FCGX_Accept_r's
// initial finish from closing the fd. Freed without an fd: reply() takes it first.
struct FcgxRequest {
    FCGX_Request req;
    explicit FcgxRequest(int fd) {
        FCGX_InitRequest(&req, -1, 0);
        req.ipcFd = fd;
        req.keepConnection = 1;
    }
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
    r.streamed_body = param(fr, "POUCH_STREAMED_BODY") == "1";
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

// How long a streamed body may take to arrive: POUCH_UPLOAD_SECONDS (60, nginx's own wait for
// each piece of a body) plus 1 s per 32 KiB, so 4 MiB may take 3 min 8 s (~22 KiB/s).
long long receipt_seconds(int base_seconds, long long content_length) {
    return base_seconds + std::max(0LL, content_length) / (32 * 1024);
}

// A streamed body as nginx passes it on while it arrives (fastcgi_request_buffering off), read
// against its deadline. libfcgi reads with blocking reads and loops until it has all it was
// asked for, so a piece is asked only for what libfcgi already holds, or for one byte when it
// holds nothing: only then does it read the socket, and the socket's receive timeout
// (SO_RCVTIMEO, set to what is left before the deadline, again at most once a second) bounds
// that wait. A read that times out leaves libfcgi's stream in error; the answer still goes
// out and the connection is closed after it (reply()).
class StreamedBody {
  public:
    using Clock = std::chrono::steady_clock;
    StreamedBody(FCGX_Request& fr, size_t limit, long long seconds)
        : fr_(fr),
          limit_(limit),
          seconds_(seconds),
          deadline_(Clock::now() + std::chrono::seconds(seconds)) {}

    // Up to n bytes, fewer only at the body's end (0 there); throws 408 past the deadline and
    // 413 past the route's limit.
    size_t read(char* buf, size_t n) {
        size_t got = read_some(buf, n);
        total_ += got;
        if (total_ > limit_)
            throw Error(Code::payload_too_large,
                        "request body exceeds " + std::to_string(limit_) + " bytes");
        return got;
    }

  private:
    static constexpr size_t kMost = 1 << 20;

    size_t read_some(char* buf, size_t n) {
        FCGX_Stream* in = fr_.in;
        if (!in) return 0;
        n = std::min(n, kMost);
        size_t got = 0;
        while (got < n) {
            // After a failed read libfcgi's buffer pointers are stale: look at the error first.
            if (FCGX_GetError(in) != 0) {  // a read failed: timed out, or nginx went away
                if (got == 0 && Clock::now() >= deadline_ - std::chrono::milliseconds(50))
                    throw timed_out();
                break;
            }
            if (FCGX_HasSeenEOF(in)) {
                no_more_waits();
                break;
            }
            size_t held = static_cast<size_t>(in->stop - in->rdNext);
            if (held > 0) {  // from libfcgi's buffer: no read
                int m = FCGX_GetStr(buf + got, static_cast<int>(std::min(n - got, held)), in);
                if (m <= 0) break;
                got += static_cast<size_t>(m);
                continue;
            }
            bound_the_wait();
            // One byte: libfcgi refills its buffer (one read) and stops there; on the end or
            // an error the next turn sees it.
            if (FCGX_GetStr(buf + got, 1, in) == 1) ++got;
        }
        return got;
    }

    Error timed_out() const {
        return Error(Code::request_timeout,
                     "the body did not arrive within " + std::to_string(seconds_) + " s");
    }

    // Before each read that may wait: past the deadline it is 408, else the socket's timeout
    // ends the wait there (within a second: it is set again at most once a second).
    void bound_the_wait() {
        auto now = Clock::now();
        if (now >= deadline_) throw timed_out();
        if (now < set_at_ + std::chrono::seconds(1)) return;
        auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - now);
        timeval tv{};
        tv.tv_sec = static_cast<time_t>(left.count() / 1000000);
        tv.tv_usec = static_cast<suseconds_t>(left.count() % 1000000);
        if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1;  // zero would mean no timeout
        ::setsockopt(fr_.ipcFd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        set_at_ = now;
    }

    // The whole body is in: the connection may carry the next request, which must not
    // inherit this one's receive timeout.
    void no_more_waits() {
        if (set_at_ == Clock::time_point{}) return;
        timeval none{};
        ::setsockopt(fr_.ipcFd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
        set_at_ = Clock::time_point{};
    }

    FCGX_Request& fr_;
    size_t limit_;
    size_t total_ = 0;
    long long seconds_;
    Clock::time_point deadline_;
    Clock::time_point set_at_{};  // when SO_RCVTIMEO was last set; never yet at first
};

void prepare_body(FCGX_Request& fr, Request& r, const Route& route, int upload_seconds) {
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
    auto body = std::make_shared<StreamedBody>(fr, o.body_limit,
                                               receipt_seconds(upload_seconds, r.content_length));
    // A streamed body is read at the client's pace, so never on a worker's place: a route that
    // reads one without entering receipt first is a bug, and its first read says so (500).
    // Whether it entered is a flag of its own: the ticket holds no pointer (only its deleter,
    // which gives the place back), so `!r.receipt` is true even once it is held.
    auto entered = std::make_shared<bool>(false);
    r.read_body = [body, entered](char* buf, size_t n) {
        if (!*entered) throw std::logic_error("a streamed body is read before enter_receipt");
        return body->read(buf, n);
    };
    r.enter_receipt = [&r, entered](const std::string& account) {
        if (*entered) return;
        if (g_receipts) r.receipt = g_receipts->enter(account);
        *entered = true;
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
        prepare_body(fr, r, *m.route, services.config.upload_seconds);
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

// Reads what is left of the request's input, at most kDrainLimit bytes; true when it ended
// cleanly there, so the connection can carry the next request. nginx has sent all of a
// buffered body, and for a request without one this is the empty STDIN record, usually already
// in libfcgi's buffer. A streamed body (`streamed`, POUCH_STREAMED_BODY) arrives at the
// client's pace, so what is left of it is never waited for: the connection is kept only when
// the body was read to its end (StreamedBody has then taken its receive timeout off).
bool input_ended(FCGX_Request& fr, bool streamed) {
    if (!fr.in) return false;
    char buf[16384];
    size_t left = kDrainLimit;
    while (!streamed && !FCGX_HasSeenEOF(fr.in)) {
        int n = FCGX_GetStr(buf, sizeof buf, fr.in);
        if (n <= 0) break;
        if (static_cast<size_t>(n) > left) return false;
        left -= static_cast<size_t>(n);
    }
    return FCGX_HasSeenEOF(fr.in) && FCGX_GetError(fr.in) == 0;
}

void reply(FCGX_Request& fr, const Rendered& out, bool streamed) {
    std::string bytes = to_cgi(out);
    FCGX_PutStr(bytes.data(), static_cast<int>(bytes.size()), fr.out);
    int fd = fr.ipcFd;
    if (fd < 0) {  // libfcgi closed it after an error
        FCGX_Finish_r(&fr);
        return;
    }
    if (fr.keepConnection && !g_connections->stopping() && input_ended(fr, streamed)) {
        FCGX_Finish_r(&fr);  // writes the end of the answer; keeps the fd unless it failed
        if (fr.ipcFd >= 0) {
            fr.ipcFd = -1;
            g_connections->release(fd);
        }
        return;
    }
    // The connection ends with this answer (the peer asked so, input is left, or stopping).
    // libfcgi would shut it down and wait for the peer to close, here (closer.h): detached,
    // FCGX_Finish_r writes the end of the answer and closes its fd without the wait, and the
    // Closer drains and closes our duplicate of it. It leaves the epoll set first: the
    // duplicate would keep it registered.
    fr.keepConnection = 0;
    g_connections->forget(fd);
    int keep = ::dup(fd);
    if (keep >= 0) FCGX_Detach(&fr);
    FCGX_Finish_r(&fr);
    if (keep >= 0) Closer::instance().hand_over(keep);
}

// Serves the request waiting on `fd` (owned). A parked request's FcgxRequest lives on in its
// Finish until it is answered.
void serve_one(int fd, Router& router, Services& services) {
    auto holder = std::make_shared<FcgxRequest>(fd);
    // On a protocol error or a peer gone, libfcgi closes the fd and fails (it cannot accept).
    if (FCGX_Accept_r(&holder->req) < 0) return;
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
                reply(holder->req, answer, false);
            });
        return;
    }
    // Counted before the answer leaves, so a client that reads the metrics right after its
    // answer sees its request (http_server_test; a race otherwise, seen under load).
    log_request(*r, out.status, start, error_detail);
    reply(holder->req, out, r->streamed_body);
}

void worker(Connections& connections, Router& router, Services& services) {
    for (;;) {
        int fd = -1;
        Connections::Next next = connections.next(fd);
        if (next == Connections::Next::stop) break;
        if (next == Connections::Next::serve) serve_one(fd, router, services);
        if (t_in_receipt) {  // its request was answered and its ticket is gone
            t_in_receipt = false;
            if (g_alive.load() - g_receipts->in_receipt() > g_base_workers + kSpareWorkers) break;
        }
    }
    --g_alive;
}

// A request entered receipt on this worker (its ticket already counted): a new worker is
// started when fewer than g_base_workers are left serving.
void enter_receipt_here(Connections& connections, Router& router, Services& services) {
    t_in_receipt = true;
    if (g_alive.load() - g_receipts->in_receipt() >= g_base_workers) return;
    ++g_alive;
    std::thread(worker, std::ref(connections), std::ref(router), std::ref(services)).detach();
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
    const char* allow = std::getenv("FCGI_WEB_SERVER_ADDRS");
    Connections connections(listen_fd, allow ? allow : "", services.config.listeners);
    g_connections = &connections;
    db::set_before_use([] { g_connections->about_to_block(); });
    signal(SIGPIPE, SIG_IGN);

    Receipts receipts(services.config.uploads_per_account, services.config.uploads_in_progress,
                      [&] { enter_receipt_here(connections, router, services); });
    g_receipts = &receipts;
    g_base_workers = services.config.threads;

    std::vector<std::thread> workers;
    for (int i = 0; i < services.config.threads; ++i) {
        ++g_alive;
        workers.emplace_back(worker, std::ref(connections), std::ref(router), std::ref(services));
    }
    log::info("serving",
              {{"threads", services.config.threads},
               {"socket", !services.config.listen.empty()       ? services.config.listen
                          : services.config.socket_path.empty() ? std::string("systemd")
                                                                : services.config.socket_path}});

    int sig = 0;
    sigwait(&stop_set, &sig);
    log::info("stopping", {{"signal", sig}});
    // No more accepts; idle connections close (again each round, as busy ones turn idle and
    // the workers serve what had already come in); a busy worker finishes its request, closes
    // its connection and returns once nothing is idle.
    while (g_alive.load() > 0) {
        connections.stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (auto& w : workers) w.join();
    // No more requests come in; parked long-polls answer at once (as at their deadline).
    if (services.parking) services.parking->stop();
    if (!services.config.socket_path.empty() && listen_fd > 2)
        ::unlink(services.config.socket_path.c_str());
    log::info("stopped");
    return 0;
}

}  // namespace pouch::http
