// uuid.h -- the one id type (decisions §13): a UUID in the interface's format ("Shared
// formats": 8-4-4-4-12 hex, version 1..8, variant 8/9/a/b, or the nil and max UUIDs), accepted
// in any case and held in its canonical lower-case form, so that ids compare as plain values
// everywhere: the router and the request schemas canonicalize, handlers compare.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pouch {

bool is_uuid(std::string_view s);

// The canonical (lower-case) form of s, or nullopt when s is not a UUID.
std::optional<std::string> canonical_uuid(std::string_view s);

}  // namespace pouch
