// login.cpp -- `pouch-loadgen login`: target 2 of docs/PERFORMANCE.md, the CLI login
// long-poll at scale (docs/LOGIN.md). As --n CLIs it starts --n logins, each with its own
// P-256 sign and enc keys, PKCE verifier and DPoP proof; then, with proofs made just before,
// sends every token request with `wait` on its own keep-alive connection at once; lets the
// caller look at the waiting server (--ready-file); and approves every login as the browser
// would (web bearer, the confirm code the CLI shows) over --connections keep-alive
// connections. Prints one JSON line: tokens received, approvals, and p50/p99/max of the time
// from each approval's answer (and from its sending) to the CLI's token answer.
//
// usage: pouch-loadgen login --url http://127.0.0.1:PORT --web-token T --pouch P --member M
//          [--n 1000] [--wait 30] [--connections 4] [--ready-file F]
// The web user must have done genesis: P is one of its pouches and M its member.
#include "tools/loadgen/login.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <rapidjson/document.h>

#include "common/clientfmt/proofs.h"
#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/crypto/pkce.h"
#include "common/crypto/random.h"
#include "tools/loadgen/client.h"
#include "tools/pouchctl/client_key.h"

namespace loadgen {

namespace {

using pouch::clientfmt::make_dpop_proof;
using pouch::crypto::b64url_encode;

struct Opts {
    std::string url, host, web_token, pouch, member, ready_file;
    int port = 0, n = 1000, wait = 30, connections = 4;
};

// One answer of a request sent by send_all.
struct Answer {
    int status = 0;
    std::string body;
    double sent = -1, done = -1;  // now_ms()
};

// One CLI login and what happened to it.
struct Login {
    explicit Login(pouchctl::SignKey k) : key(std::move(k)) {}
    pouchctl::SignKey key;
    std::string verifier, request_id, confirm_code;
    int token_status = 0;
    bool got_tokens = false;
    double answered = -1;  // now_ms() of the token answer
};

std::string random_b64(size_t n) {
    return b64url_encode(pouch::crypto::random_bytes(n));
}

std::string post(const Opts& o, const std::string& path, const std::string& header,
                 const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: " + o.host +
           "\r\nContent-Type: application/json\r\n" + header +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string start_request(const Opts& o, const Login& l, size_t i) {
    std::string body = R"({"code_challenge":")" + pouch::crypto::pkce_s256(l.verifier) +
                       R"(","device_name":"bench-)" + std::to_string(i) +
                       R"(","os":"linux","arch":"x86_64","cli_version":"1.0.0","sign_pub":)" +
                       l.key.public_jwk_json() + R"(,"enc_pub":)" +
                       pouchctl::SignKey::generate().public_jwk_json() +
                       R"(,"key_storage":"file"})";
    return post(
        o, "/v1/cli-auth/requests",
        "DPoP: " + make_dpop_proof(l.key, "POST", o.url + "/v1/cli-auth/requests", std::nullopt),
        body);
}

std::string token_request(const Opts& o, const Login& l) {
    std::string body = R"({"request_id":")" + l.request_id + R"(","code_verifier":")" + l.verifier +
                       R"(","wait":)" + std::to_string(o.wait) + "}";
    return post(
        o, "/v1/cli-auth/token",
        "DPoP: " + make_dpop_proof(l.key, "POST", o.url + "/v1/cli-auth/token", std::nullopt),
        body);
}

// The browser's approval: a new device member with one key envelope for the web member's
// pouch (statements and envelopes are opaque to the service) and the confirm code.
std::string approve_request(const Opts& o, const Login& l) {
    std::string body = R"({"statement":{"statement":")" + random_b64(64) + R"(","signature":")" +
                       random_b64(64) + R"("},"welcome":")" + random_b64(64) +
                       R"(","key_envelopes":[{"pouch_id":")" + o.pouch + R"(","member_id":")" +
                       pouch::crypto::uuid_v4() + R"(","key_gen":1,"hpke_enc":")" + random_b64(65) +
                       R"(","ciphertext":")" + random_b64(48) + R"(","created_by_member":")" +
                       o.member + R"(","signature":")" + random_b64(64) +
                       R"("}],"confirm_code":")" + l.confirm_code + R"("})";
    return post(o, "/v1/cli-auth/requests/" + l.request_id + "/approve",
                "Authorization: Bearer " + o.web_token, body);
}

// Sends every request over o.connections keep-alive connections (a new one after a failed
// answer) and records each answer in `out` (same index).
void send_all(const Opts& o, const std::vector<std::string>& reqs, std::vector<Answer>& out) {
    out.assign(reqs.size(), Answer{});
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < o.connections; ++t) {
        threads.emplace_back([&] {
            int fd = -1;
            for (size_t i; (i = next.fetch_add(1)) < reqs.size();) {
                if (fd < 0) fd = connect_to(o.port);
                Answer& a = out[i];
                a.sent = now_ms();
                a.status = fd < 0 ? -1 : roundtrip(fd, reqs[i], a.body);
                a.done = now_ms();
                if (a.status != 200 && fd >= 0) {
                    close(fd);
                    fd = -1;
                }
            }
            if (fd >= 0) close(fd);
        });
    }
    for (auto& th : threads) th.join();
}

// Prints the first failed answer of each status; returns how many were not 200.
int report_failures(const char* what, const std::vector<Answer>& answers) {
    std::map<int, int> seen;
    int bad = 0;
    for (const auto& a : answers) {
        if (a.status == 200) continue;
        ++bad;
        if (seen[a.status]++ == 0)
            std::fprintf(stderr, "pouch-loadgen login: %s answered %d: %.300s\n", what, a.status,
                         a.body.c_str());
    }
    return bad;
}

// 1,000 waiting connections plus the few others: raise the soft descriptor limit if needed.
void raise_fd_limit(int need) {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= static_cast<rlim_t>(need)) return;
    r.rlim_cur = std::min(r.rlim_max, static_cast<rlim_t>(need));
    setrlimit(RLIMIT_NOFILE, &r);
}

// Hands the waiting server to the caller: writes `path`, then waits until the caller removed
// it (at most 20 s, the waits are running). Without a path it just lets them settle.
void pause_for_caller(const std::string& path) {
    if (path.empty()) {
        std::this_thread::sleep_for(std::chrono::seconds(2));
        return;
    }
    std::ofstream(path) << "waiting\n";
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::filesystem::exists(path)) {
        if (std::chrono::steady_clock::now() > until) {
            std::fprintf(stderr, "pouch-loadgen login: %s still there after 20 s; approving\n",
                         path.c_str());
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

int run(const Opts& o) {
    const size_t n = static_cast<size_t>(o.n);
    raise_fd_limit(o.n + o.connections + 64);

    // 1. n logins, each with its own keys and verifier (not timed).
    double t_setup = now_ms();
    std::vector<Login> logins;
    logins.reserve(n);
    std::vector<std::string> reqs;
    for (size_t i = 0; i < n; ++i) {
        logins.emplace_back(pouchctl::SignKey::generate());
        logins.back().verifier = random_b64(32);
        reqs.push_back(start_request(o, logins.back(), i));
    }
    std::vector<Answer> started;
    send_all(o, reqs, started);
    if (report_failures("start", started) > 0) return 1;
    for (size_t i = 0; i < n; ++i) {
        rapidjson::Document d;
        d.Parse(started[i].body.c_str());
        if (d.HasParseError() || !d.IsObject() || !d.HasMember("data") ||
            !d["data"].HasMember("request_id") || !d["data"]["request_id"].IsString()) {
            std::fprintf(stderr, "pouch-loadgen login: start answer without request_id: %.300s\n",
                         started[i].body.c_str());
            return 1;
        }
        Login& l = logins[i];
        l.request_id = d["data"]["request_id"].GetString();
        l.confirm_code = pouch::crypto::confirm_code(
            l.request_id, pouch::crypto::jwk_thumbprint(l.key.x(), l.key.y()));
    }
    std::vector<std::string> approvals;
    for (const auto& l : logins) approvals.push_back(approve_request(o, l));
    double setup_s = (now_ms() - t_setup) / 1000;

    // 2. Every token request at once, each on its own connection, proofs made just now (the
    // server accepts an iat from 120 s ago).
    reqs.clear();
    for (const auto& l : logins) reqs.push_back(token_request(o, l));
    std::atomic<size_t> sent{0};
    std::atomic<int> shown{0};  // failed token answers printed (the first few)
    std::vector<std::thread> waiters;
    double t_send = now_ms();
    for (size_t i = 0; i < n; ++i) {
        waiters.emplace_back([&, i] {
            Login& l = logins[i];
            int fd = connect_to(o.port);
            if (fd < 0) {
                l.token_status = -2;
                ++sent;
                return;
            }
            timeval tv{o.wait + 60, 0};  // nginx answers 504 at 75 s: never reached
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            ++sent;  // roundtrip sends at once, then blocks for the answer
            std::string body;
            l.token_status = roundtrip(fd, reqs[i], body);
            l.answered = now_ms();
            l.got_tokens = l.token_status == 200 &&
                           body.find(R"("access_token":"svc_at_)") != std::string::npos;
            if (l.token_status != 200 && shown++ < 3)
                std::fprintf(stderr, "pouch-loadgen login: token answered %d: %.300s\n",
                             l.token_status, body.c_str());
            close(fd);
        });
    }
    while (sent.load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    double send_s = (now_ms() - t_send) / 1000;
    pause_for_caller(o.ready_file);
    int early = 0;
    for (const auto& l : logins) early += l.answered >= 0;

    // 3. The browser approves each one.
    std::vector<Answer> approved;
    send_all(o, approvals, approved);
    int approve_errors = report_failures("approve", approved);
    for (auto& th : waiters) th.join();

    std::vector<double> from_done, from_sent;
    int tokens = 0, pending = 0, not_200 = 0;
    for (size_t i = 0; i < n; ++i) {
        const Login& l = logins[i];
        if (l.token_status != 200) ++not_200;
        if (!l.got_tokens) {
            pending += l.token_status == 200;
            continue;
        }
        ++tokens;
        if (approved[i].status != 200) continue;
        from_done.push_back(l.answered - approved[i].done);
        from_sent.push_back(l.answered - approved[i].sent);
    }
    std::sort(from_done.begin(), from_done.end());
    std::sort(from_sent.begin(), from_sent.end());
    double first = approved.front().sent, last = approved.front().done;
    for (const auto& a : approved) last = std::max(last, a.done);
    double approve_s = (last - first) / 1000;
    std::printf(
        "{\"waiters\":%d,\"wait_s\":%d,\"connections\":%d,\"setup_s\":%.2f,\"send_s\":%.2f,"
        "\"answered_before_approve\":%d,\"approved\":%d,\"approve_errors\":%d,"
        "\"approve_s\":%.2f,\"approvals_per_s\":%.1f,\"tokens\":%d,\"pending\":%d,"
        "\"not_200\":%d,\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f,\"min_ms\":%.2f,"
        "\"p50_from_sent_ms\":%.2f,\"p99_from_sent_ms\":%.2f,\"max_from_sent_ms\":%.2f}\n",
        o.n, o.wait, o.connections, setup_s, send_s, early, o.n - approve_errors, approve_errors,
        approve_s, approve_s > 0 ? (o.n - approve_errors) / approve_s : 0.0, tokens, pending,
        not_200, percentile(from_done, 0.5), percentile(from_done, 0.99),
        from_done.empty() ? -1.0 : from_done.back(), from_done.empty() ? -1.0 : from_done.front(),
        percentile(from_sent, 0.5), percentile(from_sent, 0.99),
        from_sent.empty() ? -1.0 : from_sent.back());
    return (tokens == o.n && approve_errors == 0) ? 0 : 1;
}

}  // namespace

int login_main(int argc, char** argv) {
    Opts o;
    for (int i = 0; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--url")
            o.url = v;
        else if (k == "--web-token")
            o.web_token = v;
        else if (k == "--pouch")
            o.pouch = v;
        else if (k == "--member")
            o.member = v;
        else if (k == "--n")
            o.n = std::atoi(v.c_str());
        else if (k == "--wait")
            o.wait = std::atoi(v.c_str());
        else if (k == "--connections")
            o.connections = std::atoi(v.c_str());
        else if (k == "--ready-file")
            o.ready_file = v;
        else {
            std::fprintf(stderr, "pouch-loadgen login: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (!parse_url(o.url, o.host, o.port) || o.web_token.empty() || o.pouch.empty() ||
        o.member.empty() || o.n < 1 || o.n > 5000 || o.wait < 1 || o.wait > 30 ||
        o.connections < 1 || o.connections > 64) {
        std::fprintf(stderr,
                     "usage: pouch-loadgen login --url http://127.0.0.1:PORT --web-token T "
                     "--pouch P --member M [--n 1000] [--wait 1..30] [--connections 4] "
                     "[--ready-file F]\n");
        return 2;
    }
    return run(o);
}

}  // namespace loadgen
