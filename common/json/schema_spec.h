// schema_spec.h -- the private shape behind schema::Node, shared by schema.cpp and
// schema_jwk.cpp (kept apart so only users of jwk() link the P-256 code). Not for handlers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/json/schema.h"

namespace pouch::json::schema {

enum class Kind { string, integer, boolean, array, object };

struct StringCheck {
    std::function<bool(std::string_view)> pred;
    std::string what;  // completes "must be ..."
};

struct Spec {
    Kind kind;
    bool nullable = false;
    // string
    size_t min_chars = 0;
    size_t max_chars = SIZE_MAX;
    std::vector<StringCheck> checks;  // run in order after the length bounds
    bool canonical_uuid = false;      // uuid(): rewritten to lower case once valid
    bool label = false;               // label(): the rule of label.h, as invalid_field
    // integer
    long long min = -kMaxSafeInt;
    long long max = kMaxSafeInt;
    // array
    std::optional<Node> item;
    size_t min_items = 0;
    size_t max_items = SIZE_MAX;
    bool distinct = false;
    // object
    std::vector<Member> members;
    // Whole-object check run after every member passed (jwk: the point is on the curve).
    std::function<bool(const rapidjson::Value&)> object_check;
    std::string object_check_what;
};

}  // namespace pouch::json::schema
