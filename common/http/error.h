// error.h -- the HTTP edge of common/types/error.h: the status of each Fault and the errors
// whose details need JSON (epoch_mismatch). Handlers raise catalogue entries
// (`throw Error(Code::genesis_required)`); only common/http/response.cpp turns an Error into
// the JSON envelope (decisions §2).
#pragma once

#include <string>
#include <utility>

#include "common/types/error.h"

namespace pouch::http {

// 400, 401, 403, 404, 405, 409, 410, 413, 415, 429, 500, 503 (kFaultStatus).
int status_of(Fault fault);

inline Error not_found(std::string message = {}) {
    return Error(Code::not_found, std::move(message));
}
inline Error unauthenticated(std::string message = {}) {
    return Error(Code::unauthenticated, std::move(message));
}
inline Error forbidden(std::string message = {}) {
    return Error(Code::forbidden, std::move(message));
}
inline Error wrong_caller(std::string message) {
    return Error(Code::wrong_caller, std::move(message));
}
inline Error internal_error() {
    return Error(Code::internal);
}
// 409 with details {current_epoch, high_water}: the client resyncs from the current epoch.
Error epoch_mismatch(const std::string& current_epoch, long long high_water);

}  // namespace pouch::http
