// jcs.h -- RFC 8785 (JSON Canonicalization Scheme) serialization of a RapidJSON value, the
// input of the Service-Signature hash (decisions §1). Relies on the strict parser having
// normally refused bad input already; JCS re-checks what it cannot represent.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

namespace pouch::json {

// The canonical text of v, or nullopt when JCS cannot represent v exactly: a number that
// is not integral or lies outside ±(2^53 - 1) (an integral double such as 56.0 prints "56"),
// a string or key that is not valid UTF-8, or a duplicate key. The caller picks the error (the
// commit handler rejects such a body before hashing). Members sort by the UTF-16 code units of
// their keys; strings are escaped like ECMAScript JSON.stringify (\" \\ \b \f \n \r \t, other
// controls as \u00xx lower-case, everything else literal UTF-8).
std::optional<std::string> jcs(const rapidjson::Value& v);

}  // namespace pouch::json
