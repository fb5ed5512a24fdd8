// http.h -- the CLI's HTTP client on libcurl (Debian's libcurl4-openssl-dev): one easy handle
// kept alive across requests, answers read whole into memory up to kMaxAnswerBytes (the
// largest the service sends is a 4 MiB + 28 byte chunk or a page of about 4 MiB; a server that
// sends more is not read further), and a progress hook that can also abort a long-poll.
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
    long timeout_seconds = 60;
    // Called about once a second and on every transfer step; return false to abort.
    std::function<bool(long long up_now, long long up_total, long long down_now,
                       long long down_total)>
        progress;
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
// `too_large` when the answer passed kMaxAnswerBytes (not a transport failure to retry).
struct HttpError : std::runtime_error {
    bool aborted, too_large;
    HttpError(const std::string& m, bool aborted, bool too_large = false)
        : std::runtime_error(m), aborted(aborted), too_large(too_large) {}
};

class Http {
  public:
    Http();
    ~Http();
    Http(const Http&) = delete;
    Http& operator=(const Http&) = delete;
    HttpResponse send(const HttpRequest& req);  // throws HttpError

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay).
std::string url_encode(const std::string& s);

}  // namespace pouch::cli
