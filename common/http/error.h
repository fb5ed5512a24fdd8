// error.h -- the HTTP edge of common/types/error.h: the status of each Fault (the one place
// they are mapped), and ApiError, an Error that handlers raise with the status they mean
// (`throw ApiError(409, "epoch_mismatch", ...)`). Only common/http/response.cpp turns an
// Error into the JSON envelope (decisions §2).
#pragma once

#include <string>
#include <utility>

#include "common/types/error.h"

namespace pouch::http {

// 400, 401, 403, 404, 405, 409, 410, 413, 415, 429, 500, 503.
int status_of(Fault fault);
// The inverse. A status outside that list has no Fault and would be answered as another, so it
// throws std::logic_error (a programming error, answered 500 by render_guarded).
Fault fault_of(int status);

// The status lives in the Fault only: status_of(fault) is what the answer carries.
struct ApiError : Error {
    ApiError(int status, std::string code, std::string message, std::string field = {})
        : Error(fault_of(status), std::move(code), std::move(message), std::move(field)) {}

    ApiError& with_header(std::string name, std::string value) {
        Error::with_header(std::move(name), std::move(value));
        return *this;
    }
    ApiError& with_details(std::string json_object) {
        Error::with_details(std::move(json_object));
        return *this;
    }
};

inline ApiError not_found() {
    return ApiError(404, "not_found", "resource not found");
}
inline ApiError unauthenticated(std::string message = "authentication required") {
    return ApiError(401, "unauthenticated", std::move(message));
}
inline ApiError forbidden(std::string message = "not allowed") {
    return ApiError(403, "forbidden", std::move(message));
}
inline ApiError wrong_caller(std::string message) {
    return ApiError(403, "wrong_caller", std::move(message));
}
inline ApiError internal_error() {
    return ApiError(500, "internal", "internal error");
}

}  // namespace pouch::http
