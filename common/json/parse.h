// parse.h -- strict JSON input (decisions §3) on RapidJSON: valid UTF-8 with no lone
// surrogates, no duplicate key at any depth, top level an object.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

namespace pouch::json {

// The parse budget (decisions §13), enforced while reading, before anything large is built,
// so a hostile body is refused in one pass over its bytes with memory bounded by the body:
// - objects and arrays nested deeper than kMaxDepth are refused, so neither the document's
//   destructor nor any recursive walk over it can exhaust the stack;
// - an object with more than kMaxMembers members (no request schema has more than a few
//   dozen; unknown members are refused anyway);
// - a document of more than kMaxValues values (every scalar, object and array counts; the
//   largest valid request, a 50-op commit with 1,000 blob ids per op, holds about 60,000).
constexpr int kMaxDepth = 32;
constexpr size_t kMaxMembers = 1024;
constexpr size_t kMaxValues = 262144;

// Throws Error (Fault::bad_input) `invalid_json` with a human message on any violation, the budget's
// included.
rapidjson::Document parse_strict(std::string_view body);

// Same rules, but any top-level value is accepted (tests, tools).
rapidjson::Document parse_strict_any(std::string_view text);

}  // namespace pouch::json
