// client_jws.cpp -- JWS signing input and serialization (client_jws.h) on SignKey and
// common/crypto/b64url.h.
#include "tools/pouchctl/client_jws.h"

#include "common/crypto/b64url.h"

namespace pouchctl {

using pouch::crypto::b64url_encode;

std::string jws_compact(const SignKey& key, std::string_view header_json,
                        std::string_view payload) {
    std::string input = b64url_encode(header_json) + "." + b64url_encode(payload);
    return input + "." + b64url_encode(key.sign_es256(input));
}

std::string jws_detached(const SignKey& key, std::string_view header_json,
                         std::string_view payload_b64) {
    std::string header_b64 = b64url_encode(header_json);
    std::string input = header_b64 + "." + std::string(payload_b64);
    return header_b64 + ".." + b64url_encode(key.sign_es256(input));
}

}  // namespace pouchctl
