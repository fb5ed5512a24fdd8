// response.cpp -- the one place that renders the JSON envelope (decisions §2) for successes
// and errors, and the FastCGI header block. Every API reply carries X-Request-Id,
// Cache-Control: no-store (bodies may hold tokens) and X-Content-Type-Options: nosniff.
#include "common/http/response.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "common/json/out.h"

namespace pouch::http {

const char* status_reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 409:
            return "Conflict";
        case 410:
            return "Gone";
        case 413:
            return "Payload Too Large";
        case 415:
            return "Unsupported Media Type";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        default:
            return "Unknown";
    }
}

namespace {

void base_headers(Rendered& r, const std::string& request_id) {
    r.headers.emplace_back("Content-Type", "application/json");
    r.headers.emplace_back("Cache-Control", "no-store");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("X-Request-Id", request_id);
}

}  // namespace

int status_of(Fault fault) {
    for (const auto& [f, status] : kFaultStatus)
        if (f == fault) return status;
    return 500;
}

Error epoch_mismatch(const std::string& current_epoch, long long high_water) {
    json::Out d;
    d.kv("current_epoch", current_epoch).kv("high_water", high_water);
    return Error(Code::epoch_mismatch).with_details(d.done());
}

Rendered render_success(const Response& resp, const std::string& request_id) {
    Rendered r{resp.status, {}, {}};
    if (resp.raw) {
        r.headers = resp.headers;
        r.headers.emplace_back("X-Content-Type-Options", "nosniff");
        r.headers.emplace_back("X-Request-Id", request_id);
        r.body = resp.raw_body;
        return r;
    }
    base_headers(r, request_id);
    for (const auto& h : resp.headers) r.headers.push_back(h);
    json::Out o;
    o.kv("ok", true);
    o.key("data").raw(resp.data);
    o.key("meta").obj().kv("request_id", request_id);
    if (resp.list || resp.next_cursor) o.kv("next_cursor", resp.next_cursor);
    o.end_obj();
    r.body = o.done();
    return r;
}

Rendered render_error(const Error& e, const std::string& request_id) {
    Rendered r{status_of(e.fault), {}, {}};
    base_headers(r, request_id);
    for (const auto& h : e.headers) r.headers.push_back(h);
    json::Out o;
    o.kv("ok", false);
    o.key("error").obj().kv("code", e.code).kv("message", e.message);
    if (!e.field.empty()) o.kv("field", e.field);
    if (!e.details_json.empty()) o.key("details").raw(e.details_json);
    o.end_obj();
    o.key("meta").obj().kv("request_id", request_id).end_obj();
    r.body = o.done();
    return r;
}

Rendered render_guarded(const std::string& request_id, std::string& error_detail,
                        const std::function<Response()>& fn) {
    try {
        return render_success(fn(), request_id);
    } catch (const Error& e) {
        // A database failure's cause (libpq's text) is logged, never answered.
        if (status_of(e.fault) >= 500)
            error_detail = e.cause.empty() ? e.message : "database: " + e.cause;
        return render_error(e, request_id);
    } catch (const std::exception& e) {
        error_detail = e.what();
        return render_error(internal_error(), request_id);
    }
}

std::string to_cgi(const Rendered& r) {
    std::string out =
        "Status: " + std::to_string(r.status) + " " + status_reason(r.status) + "\r\n";
    for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
    out += r.body;
    return out;
}

}  // namespace pouch::http
