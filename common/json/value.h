// value.h -- reading a validated document: a string value as std::string, and an optional
// member (absent or null) as nullopt. Validation (schema.h) has checked the types already.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

namespace pouch::json {

inline std::string text(const rapidjson::Value& v) {
    return std::string(v.GetString(), v.GetStringLength());
}

inline std::optional<std::string> opt_text(const rapidjson::Value& object, const char* name) {
    auto it = object.FindMember(name);
    if (it == object.MemberEnd() || it->value.IsNull()) return std::nullopt;
    return text(it->value);
}

}  // namespace pouch::json
