// error.h -- a failure as a value, for every layer, raised by its catalogue entry
// (error_catalogue.def): `throw Error(Code::epoch_mismatch)`, with an optional message, the
// JSON Pointer of the offending field, a details object and extra headers. db, json and crypto
// throw it without knowing HTTP; common/http renders it (the status comes from the catalogue).
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pouch {

// What kind of failure; each has one HTTP status (kFaultStatus below).
enum class Fault {
    bad_input,         // the request is malformed or breaks a rule of its shape
    unauthenticated,   // no, unknown or expired credentials
    forbidden,         // the caller may not do this
    not_found,         // no such resource (or another account's)
    not_allowed,       // this resource does not take this method
    conflict,          // the resource's state forbids it now
    timed_out,         // the request did not arrive in time
    gone,              // it existed, and is over
    too_large,         // the body exceeds the route's limit
    unsupported_type,  // the body's media type is not the route's
    too_many,          // a rate or capacity limit; retry later
    unavailable,       // a dependency is down; retry later
    internal,          // a bug
};

inline constexpr std::pair<Fault, int> kFaultStatus[] = {
    {Fault::bad_input, 400},   {Fault::unauthenticated, 401},
    {Fault::forbidden, 403},   {Fault::not_found, 404},
    {Fault::not_allowed, 405}, {Fault::timed_out, 408},
    {Fault::conflict, 409},    {Fault::gone, 410},
    {Fault::too_large, 413},   {Fault::unsupported_type, 415},
    {Fault::too_many, 429},    {Fault::internal, 500},
    {Fault::unavailable, 503},
};

// The Fault of a status; a status outside kFaultStatus throws (a compile error in the
// catalogue, which is evaluated at compile time).
constexpr Fault fault_of_status(int status) {
    for (const auto& [f, s] : kFaultStatus)
        if (s == status) return f;
    throw "this HTTP status has no Fault";
}

// Every code of the catalogue.
enum class Code {
#define POUCH_ERROR(code, status, message, when) code,
#include "common/types/error_catalogue.def"
#undef POUCH_ERROR
};

struct CodeEntry {
    Code id;
    std::string_view code;     // as answered: "epoch_mismatch"
    int status;                // the HTTP status it is answered with
    Fault fault;               // fault_of_status(status)
    std::string_view message;  // the default message
    std::string_view when;     // for docs/API.md
};

inline constexpr CodeEntry kCatalogue[] = {
#define POUCH_ERROR(code, status, message, when) \
    {Code::code, #code, status, fault_of_status(status), message, when},
#include "common/types/error_catalogue.def"
#undef POUCH_ERROR
};

constexpr const CodeEntry& entry(Code c) {
    return kCatalogue[static_cast<std::size_t>(c)];
}

// A status nginx alone answers with a catalogue code (502 and 504 as `unavailable`).
struct EdgeEntry {
    std::string_view code;
    int status;
    std::string_view when;
};
inline constexpr EdgeEntry kEdgeStatuses[] = {
#define POUCH_ERROR(code, status, message, when)
#define POUCH_EDGE(code, status, when) {#code, status, when},
#include "common/types/error_catalogue.def"
#undef POUCH_ERROR
};

struct Error : std::exception {
    Code id;
    Fault fault;               // entry(id).fault
    std::string_view code;     // entry(id).code
    std::string message;       // for people, answered; the catalogue's unless given
    std::string field;         // JSON Pointer ("/ops/3/artifact_id") or "?name"; empty if none
    std::string details_json;  // serialized JSON object, empty if none
    std::vector<std::pair<std::string, std::string>> headers;
    // A failure the database reported (common/db): the SQLSTATE ("23505" unique violation),
    // whether the connection broke (then the code is `unavailable`, else `internal`) and
    // libpq's text. The cause goes to the log (what()), never into an answer.
    std::string sqlstate;
    bool connection_lost = false;
    std::string cause;

    explicit Error(Code id, std::string message = {}, std::string field = {})
        : id(id),
          fault(entry(id).fault),
          code(entry(id).code),
          message(message.empty() ? std::string(entry(id).message) : std::move(message)),
          field(std::move(field)) {}

    Error& with_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    Error& with_details(std::string json_object) {
        details_json = std::move(json_object);
        return *this;
    }
    // For logs: the cause when there is one, else the message.
    const char* what() const noexcept override {
        return cause.empty() ? message.c_str() : cause.c_str();
    }
};

// The common ones with their usual arguments.
inline Error validation_failed(std::string field, std::string message) {
    return Error(Code::validation_failed, std::move(message), std::move(field));
}
// A value of the right type whose content a rule of decisions §15 refuses (a label outside
// its alphabet, a genesis statement that does not name its own signer).
inline Error invalid_field(std::string field, std::string message) {
    return Error(Code::invalid_field, std::move(message), std::move(field));
}
inline Error invalid_json(std::string message) {
    return Error(Code::invalid_json, std::move(message));
}
inline Error unavailable(std::string message = {}) {
    return Error(Code::unavailable, std::move(message)).with_header("Retry-After", "1");
}

}  // namespace pouch
