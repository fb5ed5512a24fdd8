// request.h -- one HTTP request as the FastCGI loop hands it to a route: method, path,
// decoded query (repeated keys rejected), lower-case headers, path params and the body
// (read up to the route's limit; streamed routes read it themselves through read_body).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace pouch::http {

struct Request {
    std::string method;
    std::string path;          // as sent (REQUEST_URI), without the query
    std::string document_uri;  // nginx's normalized, decoded $uri (DOCUMENT_URI); "" if absent
    std::string log_path;      // path with secret params masked (Router::loggable_path)
    std::string route;         // pattern of the matched route, "" when none matched (metrics)
    std::string raw_query;
    std::string request_id;  // nginx $request_id
    std::string remote_addr;
    std::string content_type;
    long long content_length = -1;               // -1 when absent
    std::map<std::string, std::string> query;    // decoded values
    std::map<std::string, std::string> headers;  // lower-case names, from HTTP_* params
    std::map<std::string, std::string> params;   // path template params
    std::string body;                            // empty for streamed routes
    // nginx passes this request's body on as it arrives (POUCH_STREAMED_BODY=1, the blob
    // upload location): what is left of it is never waited for, and the connection closes
    // after the answer unless the body was read to its end.
    bool streamed_body = false;

    // For routes declared streaming: reads up to n bytes, returns 0 at end of body. Throws
    // 408 request_timeout once the body has taken longer than its receipt deadline, and
    // std::logic_error (500) when enter_receipt was not called first.
    std::function<size_t(char* buf, size_t n)> read_body;
    // For routes declared streaming, and required before read_body: enters receipt for
    // `account` (common/http/receipts.h), so the body no longer holds a worker's place; throws
    // 429 or 503 at a bound. A route calls it after its own checks, which answer without
    // reading the body (an upload with no reservation is 400, not 429). The ticket, in
    // `receipt`, lives as long as the request.
    std::function<void(const std::string& account)> enter_receipt;
    std::shared_ptr<void> receipt;

    // Empty string when absent.
    const std::string& header(const std::string& lower_name) const;
    const std::string* query_param(const std::string& name) const;
    const std::string& param(const std::string& name) const;
};

// Parses an application/x-www-form-urlencoded query string. Throws Error 400
// validation_failed (field "?name") for a repeated key or a malformed escape.
std::map<std::string, std::string> parse_query(const std::string& raw);

// The client address of a request (REMOTE_ADDR: nginx's $remote_addr, after its trusted-proxy
// handling) in canonical text, or nullopt when it is not one IPv4 or IPv6 address (empty, a
// unix socket's "unix:").
std::optional<std::string> canonical_ip(const std::string& remote_addr);

// Percent-decodes; returns nullopt on a malformed escape. '+' becomes ' ' when plus_is_space.
std::optional<std::string> percent_decode(const std::string& s, bool plus_is_space);

}  // namespace pouch::http
