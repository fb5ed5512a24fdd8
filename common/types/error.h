// error.h -- a failure as a value, for every layer: what kind of failure it is (Fault), a
// machine code clients branch on, a message for people, and optionally the JSON Pointer of the
// offending field, a details object and extra headers. db, json and crypto throw it without
// knowing HTTP; common/http maps the Fault to a status code in one place (status_of()).
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace pouch {

enum class Fault {
    bad_input,         // the request is malformed or breaks a rule of its shape
    unauthenticated,   // no, unknown or expired credentials
    forbidden,         // the caller may not do this
    not_found,         // no such resource (or another account's)
    not_allowed,       // this resource does not take this method
    conflict,          // the resource's state forbids it now
    gone,              // it existed, and is over
    too_large,         // the body exceeds the route's limit
    unsupported_type,  // the body's media type is not the route's
    too_many,          // a rate or capacity limit; retry later
    unavailable,       // a dependency is down; retry later
    internal,          // a bug
};

struct Error : std::exception {
    Fault fault;
    std::string code;
    std::string message;
    std::string field;         // JSON Pointer ("/ops/3/artifact_id") or "?name"; empty if none
    std::string details_json;  // serialized JSON object, empty if none
    std::vector<std::pair<std::string, std::string>> headers;

    Error(Fault fault, std::string code, std::string message, std::string field = {})
        : fault(fault), code(std::move(code)), message(std::move(message)),
          field(std::move(field)) {}

    Error& with_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    Error& with_details(std::string json_object) {
        details_json = std::move(json_object);
        return *this;
    }
    const char* what() const noexcept override { return message.c_str(); }
};

// The common ones, so codes are written once.
inline Error validation_failed(std::string field, std::string message) {
    return Error(Fault::bad_input, "validation_failed", std::move(message), std::move(field));
}
// A value of the right type whose content a rule of decisions §15 refuses (a label outside
// its alphabet, a genesis statement that does not name its own signer).
inline Error invalid_field(std::string field, std::string message) {
    return Error(Fault::bad_input, "invalid_field", std::move(message), std::move(field));
}
inline Error invalid_json(std::string message) {
    return Error(Fault::bad_input, "invalid_json", std::move(message));
}
inline Error unavailable(std::string message = "a dependency is unavailable, retry shortly") {
    return Error(Fault::unavailable, "unavailable", std::move(message)).with_header("Retry-After", "1");
}

}  // namespace pouch
