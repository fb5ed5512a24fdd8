// pouch-loadgen -- commit load against a running stack as a CLI device (issue 6, target 1).
// Every request is pre-generated before the clock starts: a commit of --batch new puts, its
// Service-Signature (JCS + BLAKE3 + ES256, as `pouchctl sign-body`) and a fresh DPoP proof
// bound to the access token. --concurrency threads then send them over keep-alive HTTP/1.1
// connections (a raw socket client, loopback only) and the tool prints one JSON line:
// commits, applied ops/s, p50/p99 latency in ms, errors.
//
// `pouch-loadgen wait ...` measures long-poll wake-ups instead (see wait_mode), and
// `pouch-loadgen login ...` the CLI login long-poll at scale (login.cpp).
//
// usage: pouch-loadgen --url http://127.0.0.1:PORT --key sign.pem --access TOKEN
//          --pouch ID --epoch E --member M [--batch 1] [--concurrency 8] [--requests 1000]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "tools/loadgen/client.h"
#include "tools/loadgen/login.h"
#include "tools/pouchctl/client_jws.h"
#include "tools/pouchctl/client_key.h"

namespace {

using loadgen::connect_to;
using loadgen::now_ms;
using loadgen::roundtrip;
using pouch::crypto::b64url_encode;
using Clock = std::chrono::steady_clock;

struct Opts {
    std::string url, key, access, pouch, epoch, member;
    int batch = 1, concurrency = 8, requests = 1000;
};

std::string uuid() {
    std::string r = pouch::crypto::to_hex(pouch::crypto::random_bytes(16));
    return r.substr(0, 8) + "-" + r.substr(8, 4) + "-4" + r.substr(13, 3) + "-8" + r.substr(17, 3) +
           "-" + r.substr(20, 12);
}

std::string make_request(const Opts& o, const pouchctl::SignKey& k, const std::string& host) {
    std::string path = "/v1/pouches/" + o.pouch + "/operations";
    std::string body =
        R"({"operation_id":")" + uuid() + R"(","epoch":")" + o.epoch + R"(","ops":[)";
    for (int i = 0; i < o.batch; ++i) {
        if (i) body += ',';
        std::string rev = uuid();
        body += R"({"type":"put","artifact_id":")" + uuid() + R"(","revision_id":")" + rev +
                R"(","base_revision_id":null,"key_gen":1,"envelope":")" +
                b64url_encode(pouch::crypto::random_bytes(96)) +
                R"(","signature":"c2lnbmF0dXJl","signer_member_id":")" + o.member +
                R"(","blob_ids":[]})";
    }
    body += "]}";
    rapidjson::Document doc = pouch::json::parse_strict(body);
    std::string hash = b64url_encode(pouch::crypto::blake3_256(*pouch::json::jcs(doc)));
    std::string sig_header =
        R"({"alg":"ES256","kid":")" + pouch::crypto::jwk_thumbprint(k.x(), k.y()) + R"("})";
    std::string sig = pouchctl::jws_detached(k, sig_header, hash);
    return "POST " + path + " HTTP/1.1\r\nHost: " + host +
           "\r\nContent-Type: application/json\r\nAuthorization: DPoP " + o.access +
           "\r\nDPoP: " + loadgen::dpop(k, "POST", o.url + path, o.access) +
           "\r\nService-Signature: " + sig + "\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

// wait mode: --n connections each send `GET path` with --header, and stay open; once all are
// sent (and a second has passed for them to reach the handler) one trigger request
// (--trigger-file: a raw HTTP request) is sent on its own connection. Prints one JSON line:
// answered, statuses other than 200, and p50/p99/max of answer time minus the trigger's
// send time and minus the trigger's answer time.
int wait_mode(int port, const std::string& host, const std::string& path,
              const std::vector<std::string>& headers, int n, const std::string& trigger_file) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    req += "\r\n";
    std::string trigger;
    if (FILE* f = std::fopen(trigger_file.c_str(), "rb")) {
        char b[65536];
        size_t k;
        while ((k = std::fread(b, 1, sizeof b, f)) > 0) trigger.append(b, k);
        std::fclose(f);
    }
    if (trigger.empty()) {
        std::fprintf(stderr, "pouch-loadgen: cannot read %s\n", trigger_file.c_str());
        return 1;
    }
    std::vector<double> answered_at(static_cast<size_t>(n), -1);
    std::vector<int> status(static_cast<size_t>(n), 0);
    std::atomic<int> sent{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            int fd = connect_to(port);
            if (fd < 0) {
                ++sent;
                status[static_cast<size_t>(i)] = -2;
                return;
            }
            std::string body;
            // roundtrip sends, then blocks reading; `sent` counts the connections opened.
            ++sent;
            status[static_cast<size_t>(i)] = roundtrip(fd, req, body);
            answered_at[static_cast<size_t>(i)] = now_ms();
            close(fd);
        });
    }
    while (sent.load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::seconds(2));
    int early = 0;
    for (int i = 0; i < n; ++i) early += answered_at[static_cast<size_t>(i)] >= 0;
    int tfd = connect_to(port);
    std::string tbody;
    double t_send = now_ms();
    int tstatus = tfd < 0 ? -1 : roundtrip(tfd, trigger, tbody);
    double t_done = now_ms();
    if (tfd >= 0) close(tfd);
    for (auto& th : threads) th.join();
    std::vector<double> from_send, from_done;
    int ok = 0, bad = 0;
    for (int i = 0; i < n; ++i) {
        if (status[static_cast<size_t>(i)] != 200) {
            ++bad;
            continue;
        }
        ++ok;
        from_send.push_back(answered_at[static_cast<size_t>(i)] - t_send);
        from_done.push_back(answered_at[static_cast<size_t>(i)] - t_done);
    }
    std::sort(from_send.begin(), from_send.end());
    std::sort(from_done.begin(), from_done.end());
    auto pct = loadgen::percentile;
    std::printf(
        "{\"waiters\":%d,\"answered_200\":%d,\"not_200\":%d,\"answered_before_trigger\":%d,"
        "\"trigger_status\":%d,\"trigger_ms\":%.2f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,"
        "\"max_ms\":%.2f,\"p50_after_trigger_answer_ms\":%.2f,"
        "\"p99_after_trigger_answer_ms\":%.2f}\n",
        n, ok, bad, early, tstatus, t_done - t_send, pct(from_send, 0.5), pct(from_send, 0.99),
        from_send.empty() ? -1.0 : from_send.back(), pct(from_done, 0.5), pct(from_done, 0.99));
    if (tstatus != 200)
        std::fprintf(stderr, "pouch-loadgen: trigger answered %d: %.300s\n", tstatus,
                     tbody.c_str());
    return (bad == 0 && tstatus == 200) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Opts o;
    if (argc > 1 && std::string(argv[1]) == "login") return loadgen::login_main(argc - 2, argv + 2);
    if (argc > 1 && std::string(argv[1]) == "wait") {
        std::string url, path, trigger;
        std::vector<std::string> headers;
        int n = 1000;
        for (int i = 2; i + 1 < argc; i += 2) {
            std::string k = argv[i], v = argv[i + 1];
            if (k == "--url")
                url = v;
            else if (k == "--path")
                path = v;
            else if (k == "--header")
                headers.push_back(v);
            else if (k == "--n")
                n = std::atoi(v.c_str());
            else if (k == "--trigger-file")
                trigger = v;
        }
        if (url.rfind("http://127.0.0.1:", 0) != 0 || path.empty() || trigger.empty() || n < 1 ||
            n > 5000) {
            std::fprintf(stderr,
                         "usage: pouch-loadgen wait --url http://127.0.0.1:PORT --path P "
                         "[--header H]... [--n 1000] --trigger-file RAW_REQUEST\n");
            return 2;
        }
        std::string host = url.substr(7);
        return wait_mode(std::atoi(host.c_str() + host.find(':') + 1), host, path, headers, n,
                         trigger);
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--url")
            o.url = v;
        else if (k == "--key")
            o.key = v;
        else if (k == "--access")
            o.access = v;
        else if (k == "--pouch")
            o.pouch = v;
        else if (k == "--epoch")
            o.epoch = v;
        else if (k == "--member")
            o.member = v;
        else if (k == "--batch")
            o.batch = std::atoi(v.c_str());
        else if (k == "--concurrency")
            o.concurrency = std::atoi(v.c_str());
        else if (k == "--requests")
            o.requests = std::atoi(v.c_str());
        else {
            std::fprintf(stderr, "pouch-loadgen: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (o.url.rfind("http://127.0.0.1:", 0) != 0 || o.key.empty() || o.access.empty() ||
        o.pouch.empty() || o.epoch.empty() || o.member.empty() || o.batch < 1 ||
        o.concurrency < 1 || o.requests < 1) {
        std::fprintf(stderr,
                     "usage: pouch-loadgen --url http://127.0.0.1:PORT --key K --access T "
                     "--pouch P --epoch E --member M [--batch N] [--concurrency C] "
                     "[--requests R]\n");
        return 2;
    }
    std::string host = o.url.substr(7);
    int port = std::atoi(host.c_str() + host.find(':') + 1);
    std::string err;
    auto key = pouchctl::SignKey::load(o.key, err);
    if (!key) {
        std::fprintf(stderr, "pouch-loadgen: %s\n", err.c_str());
        return 1;
    }
    std::vector<std::string> reqs;
    reqs.reserve(static_cast<size_t>(o.requests));
    for (int i = 0; i < o.requests; ++i) reqs.push_back(make_request(o, *key, host));

    std::atomic<size_t> next{0};
    std::atomic<long> applied{0}, errors{0};
    std::vector<std::vector<double>> lat(static_cast<size_t>(o.concurrency));
    std::map<int, int> statuses;
    std::mutex mu;
    auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < o.concurrency; ++t) {
        threads.emplace_back([&, t] {
            int fd = connect_to(port);
            std::string body;
            for (size_t i; (i = next.fetch_add(1)) < reqs.size();) {
                if (fd < 0) fd = connect_to(port);
                auto s = Clock::now();
                int status = fd < 0 ? -1 : roundtrip(fd, reqs[i], body);
                lat[static_cast<size_t>(t)].push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - s).count());
                if (status == 200) {
                    size_t pos = 0;
                    long n = 0;
                    while ((pos = body.find("\"applied\"", pos)) != std::string::npos) ++n, ++pos;
                    applied += n;
                } else {
                    ++errors;
                    std::lock_guard<std::mutex> g(mu);
                    if (statuses[status]++ == 0)
                        std::fprintf(stderr, "pouch-loadgen: status %d: %.300s\n", status,
                                     body.c_str());
                    if (fd >= 0) close(fd);
                    fd = -1;
                }
            }
            if (fd >= 0) close(fd);
        });
    }
    for (auto& th : threads) th.join();
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<double> all;
    for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    auto pct = [&](double p) { return loadgen::percentile(all, p); };
    std::printf(
        "{\"batch\":%d,\"concurrency\":%d,\"commits\":%zu,\"seconds\":%.3f,"
        "\"commits_per_s\":%.1f,\"ops_per_s\":%.1f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,"
        "\"errors\":%ld}\n",
        o.batch, o.concurrency, all.size(), secs, all.size() / secs, applied / secs, pct(0.5),
        pct(0.99), errors.load());
    return errors > 0 ? 1 : 0;
}
