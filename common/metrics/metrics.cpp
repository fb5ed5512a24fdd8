// metrics.cpp -- the process's metrics registry (metrics.h): prometheus-cpp families for the
// requests, a list of probes read at scrape time, and the text format of both.
#include "common/metrics/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <list>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

namespace pouch::metrics {

namespace detail {
struct ProbeEntry {
    std::string name;
    std::string help;
    Kind kind;
    std::function<double()> read;
};
}  // namespace detail

namespace {

// Seconds; long-polls wait up to 30 s, so the last bucket below +Inf is 30.
const prometheus::Histogram::BucketBoundaries kLatencyBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                              0.5,   1,    2.5,   5,    10,  30};

constexpr std::array<std::string_view, 7> kMethods{"GET",   "POST", "PUT",    "DELETE",
                                                   "PATCH", "HEAD", "OPTIONS"};

struct State {
    std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
    prometheus::Family<prometheus::Counter>& requests =
        prometheus::BuildCounter()
            .Name("pouch_http_requests_total")
            .Help("Requests answered, by route pattern, method and HTTP status.")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& latency =
        prometheus::BuildHistogram()
            .Name("pouch_http_request_duration_seconds")
            .Help(
                "Seconds from accepting a request to its answer (long-polls include their "
                "wait), by route pattern, method and HTTP status.")
            .Register(*registry);

    // Set by init before the workers start, then only read; the strings of earlier calls are
    // kept (unit tests call init once per test), so a reader never sees a freed one.
    std::atomic<const std::string*> group{nullptr};
    std::mutex mu;  // guards groups and probes
    std::list<std::string> groups;
    std::vector<std::shared_ptr<detail::ProbeEntry>> probes;
};

State& state() {
    static State s;
    return s;
}

std::string method_label(const std::string& m) {
    return std::find(kMethods.begin(), kMethods.end(), m) != kMethods.end() ? m : "other";
}

}  // namespace

void init(const std::string& group) {
    State& s = state();
    std::lock_guard<std::mutex> lk(s.mu);
    s.groups.push_back(group);
    s.group.store(&s.groups.back(), std::memory_order_release);
}

void observe_request(const std::string& route, const std::string& method, int status,
                     double seconds) {
    State& s = state();
    const std::string* group = s.group.load(std::memory_order_acquire);
    if (!group) return;
    prometheus::Labels labels{{"group", *group},
                              {"route", route.empty() ? "unmatched" : route},
                              {"method", method_label(method)},
                              {"status", std::to_string(status)}};
    s.requests.Add(labels).Increment();
    s.latency.Add(labels, kLatencyBuckets).Observe(seconds);
}

void Probe::reset() noexcept {
    if (!entry_) return;
    State& s = state();
    std::lock_guard<std::mutex> lk(s.mu);
    s.probes.erase(std::remove(s.probes.begin(), s.probes.end(), entry_), s.probes.end());
    entry_.reset();
}

Probe& Probe::operator=(Probe&& other) noexcept {
    if (this != &other) {
        reset();
        entry_ = std::move(other.entry_);
    }
    return *this;
}

Probe add_probe(std::string name, std::string help, Kind kind, std::function<double()> read) {
    Probe p;
    p.entry_ = std::make_shared<detail::ProbeEntry>(
        detail::ProbeEntry{std::move(name), std::move(help), kind, std::move(read)});
    State& s = state();
    std::lock_guard<std::mutex> lk(s.mu);
    s.probes.push_back(p.entry_);
    return p;
}

std::string scrape() {
    State& s = state();
    std::vector<prometheus::MetricFamily> families = s.registry->Collect();
    std::vector<std::shared_ptr<detail::ProbeEntry>> probes;
    const std::string* g = s.group.load(std::memory_order_acquire);
    std::string group = g ? *g : std::string();
    {
        std::lock_guard<std::mutex> lk(s.mu);
        probes = s.probes;
    }
    // Read outside the lock: a probe may take its own component's lock.
    for (const auto& p : probes) {
        prometheus::MetricFamily f;
        f.name = p->name;
        f.help = p->help;
        prometheus::ClientMetric m;
        m.label.push_back({"group", group});
        double v = p->read();
        if (p->kind == Kind::counter) {
            f.type = prometheus::MetricType::Counter;
            m.counter.value = v;
        } else {
            f.type = prometheus::MetricType::Gauge;
            m.gauge.value = v;
        }
        f.metric.push_back(std::move(m));
        families.push_back(std::move(f));
    }
    return prometheus::TextSerializer().Serialize(families);
}

}  // namespace pouch::metrics
