// wait.cpp -- `pouch-loadgen wait`: N devices long-poll their pouch's events (web bearer,
// GET .../events?after=HW&wait=30), spread over the pouches of --pouches, opened at --rate a
// second; once all were sent and --settle seconds passed (and, with --ready-file, the caller
// has looked at the waiting stack and removed the file), one web commit of one put is sent to
// each pouch in turn over one keep-alive connection. A waiter's wake time is its answer's
// time minus the send time of its pouch's commit.
//
// Strict: a waiter counts as woken only when answered 200 after its pouch's commit was sent,
// with the new event in the body. Prints one JSON line (waiters, woken, failed, early,
// unanswered, without_event, commits_failed, p50/p90/p99/max ms) and, with --latencies, the
// wake times in ms one a line, ascending (the bench plots them). Exit status 1 unless every
// waiter was woken.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tools/loadgen/client.h"
#include "tools/loadgen/wait.h"
#include "tools/loadgen/waiters.h"

namespace loadgen {

namespace {

// Waits (at most 30 s) for the caller to remove `path` after it has looked at the stack.
void pause_for_caller(const std::string& path) {
    if (path.empty()) return;
    std::ofstream(path) << "waiting\n";
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::filesystem::exists(path) && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// A raw HTTP request: a web commit (Bearer token) of one new put to `pouch`.
std::string web_put_request(const std::string& host, const std::string& token,
                            const std::string& pouch, const std::string& epoch,
                            const std::string& member) {
    std::string body = put_ops_body(epoch, member, 1);
    return "POST /v1/pouches/" + pouch + "/operations HTTP/1.1\r\nHost: " + host +
           "\r\nAuthorization: Bearer " + token +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

}  // namespace

int wait_main(int argc, char** argv) {
    auto o = parse_opts(
        argc, argv, {{"--n", "10000"}, {"--rate", "1000"}, {"--settle", "2"}, {"--wait", "30"}});
    std::string host;
    int port = 0;
    int n = std::atoi(o["--n"].c_str());
    std::vector<PouchLine> pouches = read_pouches(o["--pouches"]);
    if (!parse_url(o["--url"], host, port) || o["--token"].empty() || o["--member"].empty() ||
        pouches.empty() || n < 1) {
        std::fprintf(stderr,
                     "usage: pouch-loadgen wait --url http://127.0.0.1:PORT --token WEB_TOKEN "
                     "--member M --pouches FILE (lines: id epoch after) [--n 10000] "
                     "[--rate 1000] [--settle 2] [--wait 30] [--ready-file F] "
                     "[--latencies FILE]\n");
        return 2;
    }
    std::vector<std::string> reqs;
    reqs.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const PouchLine& p = pouches[static_cast<size_t>(i) % pouches.size()];
        reqs.push_back("GET /v1/pouches/" + p.id + "/events?epoch=" + p.epoch +
                       "&after=" + std::to_string(p.after) + "&wait=" + o["--wait"] +
                       " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + o["--token"] +
                       "\r\n\r\n");
    }
    // The commits are made before the clock matters.
    std::vector<std::string> commits;
    for (const auto& p : pouches)
        commits.push_back(web_put_request(host, o["--token"], p.id, p.epoch, o["--member"]));

    const double t_start = now_ms();
    Waiters w(port, std::move(reqs), std::atof(o["--rate"].c_str()));
    while (!w.all_sent()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const double send_s = (now_ms() - t_start) / 1000;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<long>(std::atof(o["--settle"].c_str()) * 1000)));
    pause_for_caller(o["--ready-file"]);

    std::vector<double> sent_at(pouches.size(), -1);
    std::vector<double> commit_ms;
    int commits_failed = 0;
    int fd = connect_to(port);
    const double t_first = now_ms();
    for (size_t p = 0; p < pouches.size(); ++p) {
        if (fd < 0) fd = connect_to(port);
        std::string body;
        sent_at[p] = now_ms();
        int status = fd < 0 ? -1 : roundtrip(fd, commits[p], body);
        commit_ms.push_back(now_ms() - sent_at[p]);
        if (status != 200 || body.find("\"applied\"") == std::string::npos) {
            if (commits_failed++ == 0)
                std::fprintf(stderr, "pouch-loadgen wait: commit answered %d: %.300s\n", status,
                             body.c_str());
            if (fd >= 0) close(fd);
            fd = -1;
        }
    }
    const double t_last = now_ms();
    if (fd >= 0) close(fd);
    w.finish(now_ms() + 10000);

    int woken = 0, failed = 0, early = 0, unanswered = 0, without_event = 0;
    std::vector<double> wake;
    for (size_t i = 0; i < w.size(); ++i) {
        const Waiters::Answer& a = w.answers()[i];
        double sent = sent_at[i % pouches.size()];
        if (a.status == 0) {
            ++unanswered;
        } else if (a.status != 200) {
            ++failed;
        } else if (a.at_ms < sent) {
            ++early;
        } else if (!a.has_items) {
            ++without_event;
        } else {
            ++woken;
            wake.push_back(a.at_ms - sent);
        }
    }
    std::sort(wake.begin(), wake.end());
    std::sort(commit_ms.begin(), commit_ms.end());
    if (!o["--latencies"].empty()) {
        std::ofstream f(o["--latencies"]);
        for (double v : wake) f << v << '\n';
    }
    std::printf(
        "{\"waiters\":%zu,\"pouches\":%zu,\"woken\":%d,\"failed\":%d,\"early\":%d,"
        "\"unanswered\":%d,\"without_event\":%d,\"commits\":%zu,\"commits_failed\":%d,"
        "\"send_s\":%.2f,\"commits_s\":%.3f,\"commit_p50_ms\":%.2f,\"p50_ms\":%.2f,"
        "\"p90_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f}\n",
        w.size(), pouches.size(), woken, failed, early, unanswered, without_event, pouches.size(),
        commits_failed, send_s, (t_last - t_first) / 1000, percentile(commit_ms, 0.5),
        percentile(wake, 0.5), percentile(wake, 0.9), percentile(wake, 0.99),
        wake.empty() ? -1.0 : wake.back());
    return (static_cast<size_t>(woken) == w.size() && commits_failed == 0) ? 0 : 1;
}

}  // namespace loadgen
