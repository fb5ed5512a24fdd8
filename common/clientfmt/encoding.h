// encoding.h -- the conventions of docs/CLIENT-FORMAT.md shared by its parts: id(u), u64be,
// JCS of an object, public JWKs, RFC 3339 times, and reading fields of a decoded JSON object
// with one error type (FormatError) for anything a reader must refuse.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace pouch::clientfmt {

// Anything that does not decode, verify or open as the format says. The message names what.
struct FormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// id(u): utf8 of the UUID in lower case (throws FormatError when u is not a UUID).
std::string id_bytes(std::string_view uuid);
bool is_uuid(std::string_view s);
std::string lower_uuid(std::string_view uuid);  // throws FormatError when not a UUID

std::string u64be(uint64_t n);

// 43 b64url characters that decode to 32 bytes: a blob id, a chunk key or hash, a name_index.
// Anything else read from content must not reach a URL or a key.
bool is_b64url32(std::string_view s);

// JCS(o) of a JSON text (an object written with json::Out): parsed strictly and
// canonicalized. Throws FormatError when JCS cannot represent it.
std::string jcs_of(std::string_view json_text);

// Parses a JSON object strictly (throws FormatError). When `must_be_canonical`, the text
// must already be its own JCS form (roster statements are verified that way).
rapidjson::Document parse_object(std::string_view text, bool must_be_canonical = false);

// Field readers for a parsed object: a missing or mistyped field throws FormatError naming it.
std::string get_str(const rapidjson::Value& o, const char* name);
// get_str without the copy: the string inside `o`, valid while its document lives.
std::string_view get_view(const rapidjson::Value& o, const char* name);
std::optional<std::string> get_opt_str(const rapidjson::Value& o,
                                       const char* name);  // null or absent
long long get_int(const rapidjson::Value& o, const char* name);
std::optional<long long> get_opt_int(const rapidjson::Value& o, const char* name);
const rapidjson::Value& get_obj(const rapidjson::Value& o, const char* name);
const rapidjson::Value& get_arr(const rapidjson::Value& o, const char* name);

// A P-256 public key as the API and the format carry it.
struct PublicJwk {
    std::string x, y;  // 43 b64url characters each

    std::string json() const;   // {"kty":"EC","crv":"P-256","x":..,"y":..}
    std::string point() const;  // 0x04 || X || Y; throws FormatError when malformed
    std::string jkt() const;    // RFC 7638 thumbprint
    bool operator==(const PublicJwk& o) const { return x == o.x && y == o.y; }
    // kty EC, crv P-256, x, y of 43 characters and nothing else; on the curve.
    static PublicJwk from_json(const rapidjson::Value& v, const char* what);
};

// "2026-11-23T10:00:00Z" for a unix time in seconds (UTC, whole seconds).
std::string rfc3339_utc(long long unix_seconds);
long long now_unix();

}  // namespace pouch::clientfmt
