// client_jws.h -- producing ES256 JWS compact serializations with the CLI sign key:
// attached `h.p.s` (DPoP proofs) and detached `h..s` (Service-Signature, RFC 7515 App. F).
#pragma once

#include <string>
#include <string_view>

#include "tools/pouchctl/client_key.h"

namespace pouchctl {

// b64url(header) "." b64url(payload) "." b64url(R||S)
std::string jws_compact(const SignKey& key, std::string_view header_json,
                        std::string_view payload);

// b64url(header) ".." b64url(R||S), signed over b64url(header) "." payload_b64.
std::string jws_detached(const SignKey& key, std::string_view header_json,
                         std::string_view payload_b64);

}  // namespace pouchctl
