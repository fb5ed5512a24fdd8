// http.h -- the CLI's HTTP client on libcurl (Debian's libcurl4-openssl-dev): one easy handle
// kept alive across requests, answers read whole into memory (the largest is a 4 MiB + 28
// byte chunk or a 4 MiB page), and a progress hook that can also abort a long-poll.
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

// Transport failures (no connection, timeout, reset). `aborted` when progress said stop.
struct HttpError : std::runtime_error {
    bool aborted;
    HttpError(const std::string& m, bool aborted) : std::runtime_error(m), aborted(aborted) {}
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
