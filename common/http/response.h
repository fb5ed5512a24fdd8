// response.h -- what a route returns on success, and the one place that renders the
// envelope {"ok","data","meta"} for successes and {"ok":false,"error",...} for an Error.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/http/error.h"

namespace pouch::http {

struct Response;

// A long-poll handed to http::Parking: the route found nothing yet and the request waits,
// holding no thread and no database connection, until a message on `channel` (or the
// deadline) makes `poll` worth calling again.
struct LongPoll {
    std::string channel;
    std::uint64_t seen = 0;  // Parking::stamp(channel), taken before the read that found nothing
    std::chrono::steady_clock::time_point deadline;
    // Non-empty: requests with equal keys that wake together may share one poll's answer
    // (the answer must then not depend on the caller).
    std::string share_key;
    // Re-reads the state: the answer once there is one, else nullopt. With `final` (the
    // deadline, or shutdown) it must answer. May throw an Error like a route.
    std::function<std::optional<Response>(bool final)> poll;
    // Non-empty: the account it counts against; Parking holds at most its per-owner limit of
    // parked requests per owner and answers the next one 429 rate_limited at once (§13).
    std::string owner;
    // Non-empty: at most one request per key is parked; a newer one answers the older with
    // `superseded` (a second token wait on one login request: 429 slow_down, §13).
    std::string exclusive_key;
    std::optional<Error> superseded;
};

struct Response {
    int status = 200;
    std::string data = "{}";                 // serialized JSON object (the envelope's data)
    std::optional<std::string> next_cursor;  // meta.next_cursor for list operations
    bool list = false;                       // when true meta.next_cursor is always present
    std::vector<std::pair<std::string, std::string>> headers;
    // Raw (non-envelope) reply, e.g. X-Accel-Redirect for blob downloads: body sent as is.
    bool raw = false;
    std::string raw_body;
    // Set by a route that waits: the server parks the request instead of answering now.
    std::shared_ptr<LongPoll> long_poll;
};

// A rendered HTTP reply: status line value, headers and body bytes.
struct Rendered {
    int status;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

const char* status_reason(int status);
Rendered render_success(const Response& r, const std::string& request_id);
Rendered render_error(const Error& e, const std::string& request_id);
// Runs a route-like function and renders what it returns or throws: an Error with the status
// of its catalogue entry (a database failure is one: 503 unavailable when the connection
// broke, else 500, its cause in `error_detail`), anything else as 500 with `error_detail` set
// for the log. `request_id` is read only when rendering, so `fn` may fill it in.
Rendered render_guarded(const std::string& request_id, std::string& error_detail,
                        const std::function<Response()>& fn);
// FastCGI stdout form: "Status: ...\r\nHeader: v\r\n\r\nbody".
std::string to_cgi(const Rendered& r);

}  // namespace pouch::http
