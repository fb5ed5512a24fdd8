// roundtrip.cpp -- `pouch-loadgen roundtrip`: the sync round trip of one change between two
// CLI devices. Per round, device B long-polls its pouch's events (DPoP, wait=30) and is
// parked; device A commits one new put (DPoP + Service-Signature, made before the clock
// starts); B wakes with the event, reads the changed artifact's page of revisions (limit=1,
// newest first: the revision with its envelope) and checks it holds A's revision. Measured:
// from A's send to B having the revision. Meanwhile --idle devices (web bearer) wait on
// other pouches (--idle-pouches) and must stay parked: any answer before the end fails.
//
// Prints one JSON line: rounds, ok, failed, idle, idle_answered, p50/p99/max ms of the round
// trip, and p50 of B's wake and of A's commit answer. Exit status 1 unless all rounds
// succeeded and every idle waiter was still waiting.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common/clientfmt/proofs.h"
#include "tools/loadgen/client.h"
#include "tools/loadgen/roundtrip.h"
#include "tools/loadgen/waiters.h"

namespace loadgen {

using pouch::clientfmt::make_dpop_proof;

int roundtrip_main(int argc, char** argv) {
    auto o =
        parse_opts(argc, argv,
                   {{"--rounds", "200"}, {"--idle", "1000"}, {"--after", "0"}, {"--gap-ms", "30"}});
    std::string host;
    int port = 0;
    int rounds = std::atoi(o["--rounds"].c_str());
    int idle = std::atoi(o["--idle"].c_str());
    std::string err;
    auto key = pouchctl::SignKey::load(o["--key"], err);
    std::vector<PouchLine> idle_pouches = read_pouches(o["--idle-pouches"]);
    if (!parse_url(o["--url"], host, port) || !key || o["--access"].empty() ||
        o["--pouch"].empty() || o["--epoch"].empty() || o["--member"].empty() || rounds < 1 ||
        (idle > 0 && (idle_pouches.empty() || o["--web-token"].empty()))) {
        std::fprintf(stderr,
                     "usage: pouch-loadgen roundtrip --url http://127.0.0.1:PORT --key K "
                     "--access T --pouch P --epoch E --member M [--after HW] [--rounds 200] "
                     "[--idle 1000 --idle-pouches FILE --web-token W] [--gap-ms 30] %s\n",
                     err.c_str());
        return 2;
    }
    const std::string& url = o["--url"];
    const std::string& access = o["--access"];
    const std::string& pouch = o["--pouch"];
    const std::string& epoch = o["--epoch"];
    long long hw = std::atoll(o["--after"].c_str());

    std::vector<std::string> idle_reqs;
    for (int i = 0; i < idle; ++i) {
        const auto& p = idle_pouches[static_cast<size_t>(i) % idle_pouches.size()];
        idle_reqs.push_back("GET /v1/pouches/" + p.id + "/events?epoch=" + p.epoch +
                            "&after=0&wait=30 HTTP/1.1\r\nHost: " + host +
                            "\r\nAuthorization: Bearer " + o["--web-token"] + "\r\n\r\n");
    }
    Waiters idlers(port, std::move(idle_reqs), 1000);
    while (!idlers.all_sent()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::seconds(1));

    const std::string events_path = "/v1/pouches/" + pouch + "/events";
    int afd = connect_to(port), bfd = connect_to(port);
    std::vector<double> total, wake, commit;
    int ok = 0, failed = 0;
    for (int r = 0; r < rounds; ++r) {
        std::string art, rev;
        std::string a_req =
            cli_commit_request(*key, url, host, access, pouch, epoch, o["--member"], 1, &art, &rev);
        double t0 = 0, t_wake = 0, t_have = 0;
        bool b_ok = false;
        std::thread b([&] {
            std::string body;
            std::string ev =
                "GET " + events_path + "?epoch=" + epoch + "&after=" + std::to_string(hw) +
                "&wait=30 HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: DPoP " + access +
                "\r\nDPoP: " + make_dpop_proof(*key, "GET", url + events_path, access) + "\r\n\r\n";
            if (bfd < 0 || roundtrip(bfd, ev, body) != 200 || body.find(rev) == std::string::npos)
                return;
            t_wake = now_ms();
            std::string page_path = "/v1/pouches/" + pouch + "/artifacts/" + art + "/revisions";
            std::string page = "GET " + page_path + "?limit=1 HTTP/1.1\r\nHost: " + host +
                               "\r\nAuthorization: DPoP " + access + "\r\nDPoP: " +
                               make_dpop_proof(*key, "GET", url + page_path, access) + "\r\n\r\n";
            if (roundtrip(bfd, page, body) != 200 || body.find(rev) == std::string::npos) return;
            t_have = now_ms();
            b_ok = true;
        });
        // B's request reaches the handler and is parked well within the gap.
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(o["--gap-ms"].c_str())));
        std::string a_body;
        t0 = now_ms();
        int a_status = afd < 0 ? -1 : roundtrip(afd, a_req, a_body);
        double t_commit = now_ms();
        b.join();
        if (a_status == 200 && a_body.find("\"applied\"") != std::string::npos && b_ok) {
            ++ok;
            ++hw;
            total.push_back(t_have - t0);
            wake.push_back(t_wake - t0);
            commit.push_back(t_commit - t0);
        } else {
            if (failed++ == 0)
                std::fprintf(stderr, "pouch-loadgen roundtrip: round %d failed (A %d: %.200s)\n", r,
                             a_status, a_body.c_str());
            // Resynchronise: a fresh pair of connections, the pouch's high water unknown to
            // B, so stop here rather than measure nonsense.
            break;
        }
    }
    if (afd >= 0) close(afd);
    if (bfd >= 0) close(bfd);
    size_t idle_answered = idlers.answered();
    idlers.finish(0);
    std::sort(total.begin(), total.end());
    std::sort(wake.begin(), wake.end());
    std::sort(commit.begin(), commit.end());
    std::printf(
        "{\"rounds\":%d,\"ok\":%d,\"failed\":%d,\"idle\":%d,\"idle_answered\":%zu,"
        "\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f,\"wake_p50_ms\":%.2f,"
        "\"commit_p50_ms\":%.2f}\n",
        rounds, ok, rounds - ok, idle, idle_answered, percentile(total, 0.5),
        percentile(total, 0.99), total.empty() ? -1.0 : total.back(), percentile(wake, 0.5),
        percentile(commit, 0.5));
    return (ok == rounds && idle_answered == 0) ? 0 : 1;
}

}  // namespace loadgen
