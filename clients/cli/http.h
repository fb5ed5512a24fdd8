// http.h -- the CLI's HTTP client on libcurl (Debian's libcurl4-openssl-dev): one easy handle
// kept alive across requests, answers read whole into memory up to kMaxAnswerBytes (the
// largest the service sends is a 4 MiB + 28 byte chunk or a page of about 4 MiB; a server that
// sends more is not read further), a progress hook that can also abort a long-poll, a file
// descriptor whose readiness aborts one at once (inotify in `pouch sync --watch`), and
// transfers in parallel (a curl multi handle of up to kMaxParallel kept-alive connections)
// whose answers come back, in the order they end, to a callback.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pouch::cli {

struct HttpRequest {
    std::string method = "GET";
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    std::string body;
    // When set, sent instead of `body` (shared with a caller that keeps it for a retry).
    std::shared_ptr<const std::string> shared_body;
    long timeout_seconds = 60;
    // Called about once a second and on every transfer step; return false to abort.
    std::function<bool(long long up_now, long long up_total, long long down_now,
                       long long down_total)>
        progress;
    // When >= 0: the transfer ends (HttpError, aborted) as soon as this descriptor is readable.
    int wake_fd = -1;
};

struct HttpResponse {
    long status = 0;
    std::map<std::string, std::string> headers;  // lower-case names, last value wins
    std::string body;
    std::string header(const std::string& lower_name) const;
};

// An answer body larger than this is cut off and refused (HttpError too_large).
constexpr size_t kMaxAnswerBytes = size_t{64} << 20;

// Transport failures (no connection, timeout, reset). `aborted` when progress said stop;
// `too_large` when the answer passed kMaxAnswerBytes; `untrusted` when the server's TLS
// certificate is not trusted or the CA file cannot be used (neither is a failure to retry).
struct HttpError : std::runtime_error {
    bool aborted, too_large, untrusted;
    HttpError(const std::string& m, bool aborted, bool too_large = false, bool untrusted = false)
        : std::runtime_error(m), aborted(aborted), too_large(too_large), untrusted(untrusted) {}
};

class Http {
  public:
    Http();
    ~Http();
    Http(const Http&) = delete;
    Http& operator=(const Http&) = delete;
    HttpResponse send(const HttpRequest& req);  // throws HttpError
    // Pins https to the certificates of this PEM file (`--ca-file`, libcurl's CURLOPT_CAINFO):
    // they are the only trust anchors, the system's store is not read. Empty: the system's.
    void set_ca_file(std::string path);
    const std::string& ca_file() const;

    // Transfers in parallel, beside send() (which neither waits for nor moves them). start()
    // first runs those in flight until fewer than kMaxParallel remain, then adds `req`; `done`
    // gets the answer, or the HttpError (response null), when the transfer ends -- called from
    // start(), wait_below() or wait_all(), never from inside libcurl, so it may start others.
    // An exception a `done` throws passes out of the call that ran it.
    static constexpr size_t kMaxParallel = 6;
    using Done = std::function<void(HttpResponse* response, const HttpError* error)>;
    void start(HttpRequest req, Done done);
    void wait_below(size_t n);  // runs transfers until fewer than n are in flight
    void wait_all() { wait_below(1); }
    // Moves the transfers in flight as far as they go without waiting (sends what can be
    // sent, reads what has arrived), calling no `done`: a caller busy with other work calls it
    // now and then, so that a prefetched answer arrives meanwhile.
    void pump();
    size_t in_flight() const;
    // Drops every transfer in flight without calling its `done` (a run that failed half-way).
    void cancel_all();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay).
std::string url_encode(const std::string& s);

}  // namespace pouch::cli
