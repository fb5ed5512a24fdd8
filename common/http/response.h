// response.h -- what a route returns on success, and the one place that renders the
// envelope {"ok","data","meta"} for successes and {"ok":false,"error",...} for ApiError.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/http/error.h"

namespace pouch {

struct Response {
    int status = 200;
    std::string data = "{}";                 // serialized JSON object (the envelope's data)
    std::optional<std::string> next_cursor;  // meta.next_cursor for list operations
    bool list = false;                       // when true meta.next_cursor is always present
    std::vector<std::pair<std::string, std::string>> headers;
    // Raw (non-envelope) reply, e.g. X-Accel-Redirect for blob downloads: body sent as is.
    bool raw = false;
    std::string raw_body;
};

// A rendered HTTP reply: status line value, headers and body bytes.
struct Rendered {
    int status;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

const char* status_reason(int status);
Rendered render_success(const Response& r, const std::string& request_id);
Rendered render_error(const ApiError& e, const std::string& request_id);
// FastCGI stdout form: "Status: ...\r\nHeader: v\r\n\r\nbody".
std::string to_cgi(const Rendered& r);

}  // namespace pouch
