// jws.h -- JWS compact serialization (RFC 7515 §7.1), attached `h.p.s` and detached
// `h..s` (Appendix F). Each part is strict b64url; the protected header is parsed with
// json::parse_strict, so duplicate members and bad UTF-8 are rejected before any check.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "common/crypto/es256.h"

namespace pouch::jose {

struct Jws {
    std::string header_b64;
    std::string payload_b64;
    std::string signature;       // raw bytes of the third part
    std::string header_json;     // decoded protected header text
    std::string payload;         // decoded payload bytes
    std::string signing_input;   // header_b64 + "." + payload_b64 (RFC 7515 §5.2)
    rapidjson::Document header;  // parsed header, always an object

    // True when `signature` is a valid raw R||S ES256 signature of signing_input by key.
    // Does not look at the header's alg: callers check the header first.
    bool verify_es256(const crypto::P256PublicKey& key) const;
};

// `h.p.s`; nullopt when the dot count is not 2, a part is not strict b64url, or the
// header is not a strict JSON object.
std::optional<Jws> parse_jws(std::string_view compact);

// `h..s` with the payload's b64url supplied by the caller (it was transmitted elsewhere
// or, for Service-Signature, is computed from the body). A non-empty middle is rejected.
std::optional<Jws> parse_jws_detached(std::string_view compact, std::string_view payload_b64);

}  // namespace pouch::jose
