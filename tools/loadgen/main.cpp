// pouch-loadgen -- commit load against a running stack as a CLI device (issue 6, target 1).
// Every request is pre-generated before the clock starts: a commit of --batch new puts, its
// Service-Signature (JCS + BLAKE3 + ES256, as `pouchctl sign-body`) and a fresh DPoP proof
// bound to the access token. --concurrency threads then send them over keep-alive HTTP/1.1
// connections (a raw socket client, loopback only) and the tool prints one JSON line:
// commits, applied ops/s, p50/p99 latency in ms, errors.
//
// With several --pouch/--epoch (comma-separated), thread t commits to pouch t % n.
//
// Other modes: `pouch-loadgen wait` (wait.cpp, many devices long-polling events),
// `roundtrip` (roundtrip.cpp, the A -> B sync round trip), `login` (login.cpp, the CLI
// login long-poll at scale), `commit-sql` (commit_sql.cpp, the pgbench baseline) and
// `statement NAME` (the SQL of a handler's registered statement, for make bench's pgbench
// scripts: the baseline runs the handler's own text).
//
// usage: pouch-loadgen --url http://127.0.0.1:PORT --key sign.pem --access TOKEN
//          --pouch ID[,ID...] --epoch E[,E...] --member M [--batch 1] [--concurrency 8]
//          [--requests 1000]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/db/query.h"
#include "tools/loadgen/client.h"
#include "tools/loadgen/commit_sql.h"
#include "tools/loadgen/login.h"
#include "tools/loadgen/roundtrip.h"
#include "tools/loadgen/wait.h"
#include "tools/pouchctl/client_key.h"

namespace {

using loadgen::connect_to;
using loadgen::roundtrip;
using Clock = std::chrono::steady_clock;

struct Opts {
    std::string url, key, access, pouch, epoch, member;
    int batch = 1, concurrency = 8, requests = 1000;
};

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t at = 0;
    for (;;) {
        size_t c = s.find(',', at);
        out.push_back(s.substr(at, c - at));
        if (c == std::string::npos) return out;
        at = c + 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    Opts o;
    if (argc > 1 && std::string(argv[1]) == "login") return loadgen::login_main(argc - 2, argv + 2);
    if (argc > 1 && std::string(argv[1]) == "wait") return loadgen::wait_main(argc - 2, argv + 2);
    if (argc > 1 && std::string(argv[1]) == "roundtrip")
        return loadgen::roundtrip_main(argc - 2, argv + 2);
    if (argc > 1 && std::string(argv[1]) == "commit-sql")
        return loadgen::commit_sql_main(argc - 2, argv + 2);
    if (argc == 3 && std::string(argv[1]) == "statement") {
        for (const pouch::db::Shape* s : pouch::db::registry())
            if (std::string(s->name) == argv[2]) {
                std::printf("%s\n", s->sql);
                return 0;
            }
        std::fprintf(stderr, "pouch-loadgen: no statement named %s\n", argv[2]);
        return 2;
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
    std::vector<std::string> pouches = split(o.pouch), epochs = split(o.epoch);
    if (pouches.size() != epochs.size()) {
        std::fprintf(stderr, "pouch-loadgen: as many --epoch values as --pouch values\n");
        return 2;
    }
    // Thread t sends its own share, to its pouch; with one pouch any thread takes any.
    std::vector<std::vector<std::string>> reqs(
        pouches.size() == 1 ? 1 : static_cast<size_t>(o.concurrency));
    for (int i = 0; i < o.requests; ++i) {
        size_t q = static_cast<size_t>(i) % reqs.size();
        size_t p = q % pouches.size();
        reqs[q].push_back(loadgen::cli_commit_request(*key, o.url, host, o.access, pouches[p],
                                                      epochs[p], o.member, o.batch));
    }

    std::vector<std::atomic<size_t>> next(reqs.size());
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
            const size_t q = static_cast<size_t>(t) % reqs.size();
            for (size_t i; (i = next[q].fetch_add(1)) < reqs[q].size();) {
                if (fd < 0) fd = connect_to(port);
                auto s = Clock::now();
                int status = fd < 0 ? -1 : roundtrip(fd, reqs[q][i], body);
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
