// error.h -- an API error as a value: HTTP status, machine code, human message, optional
// JSON Pointer field, details and extra headers. Handlers throw it; only
// common/http/response.cpp turns it into the JSON envelope (decisions §2).
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace pouch {

struct ApiError : std::exception {
    int status;
    std::string code;
    std::string message;
    std::string field;         // JSON Pointer ("/ops/3/artifact_id") or "?name"; empty if none
    std::string details_json;  // serialized JSON object, empty if none
    std::vector<std::pair<std::string, std::string>> headers;

    ApiError(int status, std::string code, std::string message, std::string field = {})
        : status(status), code(std::move(code)), message(std::move(message)),
          field(std::move(field)) {}

    ApiError& with_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    ApiError& with_details(std::string json_object) {
        details_json = std::move(json_object);
        return *this;
    }
    const char* what() const noexcept override { return message.c_str(); }
};

// The common ones, so codes and statuses are typed once.
inline ApiError validation_failed(std::string field, std::string message) {
    return ApiError(400, "validation_failed", std::move(message), std::move(field));
}
inline ApiError invalid_json(std::string message) {
    return ApiError(400, "invalid_json", std::move(message));
}
inline ApiError not_found() { return ApiError(404, "not_found", "resource not found"); }
inline ApiError unauthenticated(std::string message = "authentication required") {
    return ApiError(401, "unauthenticated", std::move(message));
}
inline ApiError forbidden(std::string message = "not allowed") {
    return ApiError(403, "forbidden", std::move(message));
}
inline ApiError wrong_caller(std::string message) {
    return ApiError(403, "wrong_caller", std::move(message));
}
inline ApiError unavailable(std::string message = "a dependency is unavailable, retry shortly") {
    return ApiError(503, "unavailable", std::move(message)).with_header("Retry-After", "1");
}
inline ApiError internal_error() {
    return ApiError(500, "internal", "internal error");
}

}  // namespace pouch
