// metrics.h -- the Prometheus metrics of one handler process (issue 18, docs/SCALING.md):
// requests and their latency per route, method and status, plus gauges and counters that are
// read when scraped (pool, parked long-polls, Redis fallback, Argon2 queue). Relies on
// prometheus-cpp's core library (Debian's libprometheus-cpp-core) for the counters, the
// histograms and the text exposition format; served by common/api/metrics_endpoint.h.
//
// The number of series stays bounded whatever clients send: a path is labelled with the
// pattern of the route it matched ("unmatched" when none did), a method outside the HTTP
// methods the API uses with "other".
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace pouch::metrics {

// Labels every series of this process with group="<group>". Called before the server starts
// its workers; before it is called, observe_request counts nothing (unit tests of the server).
void init(const std::string& group);

// One answered request (the server's log hook calls it once per answer), labelled with the
// pattern of the route the dispatcher matched ("/v1/pouches/{pouchId:uuid}/events"; "" when
// none did: "unmatched"). Thread-safe and lock-free but for prometheus-cpp's own.
void observe_request(const std::string& route, const std::string& method, int status,
                     double seconds);

enum class Kind { gauge, counter };

namespace detail {
struct ProbeEntry;
}

// A value read at scrape time, exported as `name` (unlabelled but for group) while the
// handle lives. `read` runs on the scraping thread and must be thread-safe.
class Probe {
  public:
    Probe() = default;
    Probe(Probe&&) noexcept = default;
    Probe& operator=(Probe&& other) noexcept;
    ~Probe() { reset(); }

  private:
    void reset() noexcept;  // unregisters
    friend Probe add_probe(std::string, std::string, Kind, std::function<double()>);
    std::shared_ptr<detail::ProbeEntry> entry_;
};

[[nodiscard]] Probe add_probe(std::string name, std::string help, Kind kind,
                              std::function<double()> read);

// Everything above in the Prometheus text format, version 0.0.4.
std::string scrape();

}  // namespace pouch::metrics
