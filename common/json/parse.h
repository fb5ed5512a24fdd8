// parse.h -- strict JSON input (decisions §3) on RapidJSON: valid UTF-8 with no lone
// surrogates, no duplicate key at any depth, top level an object.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

namespace pouch::json {

// Objects and arrays nested deeper than this are refused, so neither the document's
// destructor nor any recursive walk over it can exhaust the stack.
constexpr int kMaxDepth = 64;

// Throws ApiError 400 `invalid_json` with a human message on any violation.
rapidjson::Document parse_strict(std::string_view body);

// Same rules, but any top-level value is accepted (tests, tools).
rapidjson::Document parse_strict_any(std::string_view text);

}  // namespace pouch::json
