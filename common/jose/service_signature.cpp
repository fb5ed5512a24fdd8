// service_signature.cpp -- Service-Signature verification (see service_signature.h) on
// parse_jws_detached and P256PublicKey::verify.
#include "common/jose/service_signature.h"

#include "common/crypto/b64url.h"
#include "common/jose/jws.h"

namespace pouch::jose {

using namespace crypto;  // the primitives this layer composes

namespace {

// Any member we do not know is refused: crit and b64 would change what is signed
// (RFC 7797), and an unknown member would be a promise we do not keep.
bool header_acceptable(const rapidjson::Document& h, const P256PublicKey& key) {
    bool saw_alg = false;
    for (const auto& m : h.GetObject()) {
        std::string_view name(m.name.GetString(), m.name.GetStringLength());
        const auto& v = m.value;
        if (name == "alg") {
            if (!v.IsString() || std::string_view(v.GetString(), v.GetStringLength()) != "ES256")
                return false;
            saw_alg = true;
        } else if (name == "kid") {
            if (!v.IsString() ||
                std::string_view(v.GetString(), v.GetStringLength()) != key.thumbprint())
                return false;
        } else if (name == "typ") {
            if (!v.IsString()) return false;
        } else {
            return false;
        }
    }
    return saw_alg;
}

}  // namespace

bool verify_service_signature(std::string_view header_value, std::string_view body_hash_raw32,
                              const P256PublicKey& key) {
    if (body_hash_raw32.size() != 32) return false;
    auto jws = parse_jws_detached(header_value, b64url_encode(body_hash_raw32));
    if (!jws || !header_acceptable(jws->header, key)) return false;
    return jws->verify_es256(key);
}

}  // namespace pouch::jose
