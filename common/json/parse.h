// parse.h -- strict JSON input (decisions §3) on RapidJSON: valid UTF-8 with no lone
// surrogates, no duplicate key at any depth, top level an object; within a budget of counts
// and, for request bodies, of bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace pouch::json {

// The parse budget (decisions §13), enforced while reading, before anything large is built,
// so a hostile body is refused in one pass over its bytes:
// - objects and arrays nested deeper than kMaxDepth are refused, so neither the document's
//   destructor nor any recursive walk over it can exhaust the stack;
// - an object with more than kMaxMembers members (no request schema has more than a few
//   dozen; unknown members are refused anyway);
// - a document of more than kMaxValues values (every scalar, object and array counts; the
//   largest valid request, a 50-op commit with 1,000 blob ids per op, holds about 60,000);
// - a number literal longer than kMaxNumberChars characters (every number of the API is an
//   integer of at most 16 digits), so a megabyte of digits is never converted;
// - Limits::max_bytes: what the document itself holds, charged as it is built: 16 bytes per
//   value and per object key (RapidJSON's value size) plus every string it copies. A request
//   body is parsed in place (parse_request), so its strings cost nothing more than the body.
constexpr int kMaxDepth = 32;
constexpr size_t kMaxMembers = 1024;
constexpr size_t kMaxValues = 262144;
constexpr size_t kMaxNumberChars = 100;
constexpr size_t kValueBytes = 16;  // sizeof(rapidjson::Value) on 64-bit targets

// A caller reading something other than a request (the CLI's own state files) may widen
// the counts; requests use the defaults.
struct Limits {
    int max_depth = kMaxDepth;
    size_t max_members = kMaxMembers;
    size_t max_values = kMaxValues;
    size_t max_bytes = SIZE_MAX;  // SIZE_MAX: the counts alone bound the document
};

// Throws Error (Fault::bad_input) `invalid_json` with a human message on any violation, the
// budget's included. The document owns its strings (none points into `body`, and a value
// copied out of it into another document stays valid after it).
rapidjson::Document parse_strict(std::string_view body, const Limits& limits = {});

// Same rules, but any top-level value is accepted (tests, tools, the CLI's files).
rapidjson::Document parse_strict_any(std::string_view text, const Limits& limits = {});

// A request body (top level an object), parsed in place: the document's strings are decoded
// inside `body` and point into it, so no string is copied. `body` must outlive the document
// and no longer holds the text that was sent. The document may hold `max_bytes` (the request
// pipeline passes twice the route's body limit), so a request in flight holds at most its
// body, the document's values and the parser's bounded bookkeeping (docs/SECURITY.md).
rapidjson::Document parse_request(std::string& body, size_t max_bytes);

// parse_request appends this many NULs while it reads (RapidJSON's insitu reader may look up
// to 3 bytes past the end of an unfinished UTF-8 sequence): a body read with this much spare
// capacity is parsed without being copied into a larger buffer.
constexpr size_t kRequestPadding = 4;

}  // namespace pouch::json
