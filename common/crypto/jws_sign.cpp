// jws_sign.cpp -- JWS signing input and serialization (jws_sign.h) on P256PrivateKey and
// common/crypto/b64url.h.
#include "common/crypto/jws_sign.h"

#include "common/crypto/b64url.h"

namespace pouch::crypto {

std::string jws_compact(const P256PrivateKey& key, std::string_view header_json,
                        std::string_view payload) {
    std::string input = b64url_encode(header_json) + "." + b64url_encode(payload);
    return input + "." + b64url_encode(key.sign_es256(input));
}

std::string jws_detached(const P256PrivateKey& key, std::string_view header_json,
                         std::string_view payload_b64) {
    std::string header_b64 = b64url_encode(header_json);
    std::string input = header_b64 + "." + std::string(payload_b64);
    return header_b64 + ".." + b64url_encode(key.sign_es256(input));
}

}  // namespace pouch::crypto
