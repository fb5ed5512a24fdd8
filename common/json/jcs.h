// jcs.h -- RFC 8785 (JSON Canonicalization Scheme) serialization of a RapidJSON value, the
// input of the Service-Signature hash (decisions §1). Relies on the strict parser having
// normally refused bad input already; JCS re-checks what it cannot represent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <rapidjson/document.h>

namespace pouch::json {

// The canonical text of v, or nullopt when JCS cannot represent v exactly: a number that
// is not integral or lies outside ±(2^53 - 1) (an integral double such as 56.0 prints "56"),
// a string or key that is not valid UTF-8, or a duplicate key. The caller picks the error (the
// commit handler rejects such a body before hashing). Members sort by the UTF-16 code units of
// their keys; strings are escaped like ECMAScript JSON.stringify (\" \\ \b \f \n \r \t, other
// controls as \u00xx lower-case, everything else literal UTF-8). `size_hint`: room reserved
// up front (the size of the text v was parsed from, which its canonical form exceeds only
// through exponents such as 1e15), so a large body is written without the copies of a
// growing string.
std::optional<std::string> jcs(const rapidjson::Value& v, size_t size_hint = 0);

}  // namespace pouch::json
