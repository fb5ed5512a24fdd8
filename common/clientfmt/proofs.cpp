// proofs.cpp -- DPoP proofs and Service-Signature values (proofs.h) on common/crypto's JWS
// signing and common/json's strict parser and JCS, so a body signed here is one the server
// parses and hashes identically.
#include "common/clientfmt/proofs.h"

#include <ctime>
#include <stdexcept>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/jws_sign.h"
#include "common/crypto/random.h"
#include "common/json/jcs.h"
#include "common/json/out.h"
#include "common/json/parse.h"

namespace pouch::clientfmt {

std::string make_dpop_proof(const crypto::P256PrivateKey& key, std::string_view method,
                            std::string_view url, std::optional<std::string_view> access_token,
                            std::optional<long long> iat, std::optional<std::string> jti) {
    json::Out h;
    h.kv("typ", "dpop+jwt").kv("alg", "ES256");
    h.key("jwk")
        .obj()
        .kv("kty", "EC")
        .kv("crv", "P-256")
        .kv("x", key.x())
        .kv("y", key.y())
        .end_obj();
    json::Out c;
    // 16 random bytes: unguessable and unique enough for the server's 10-minute replay window.
    c.kv("jti", jti ? *jti : crypto::b64url_encode(crypto::random_bytes(16)));
    c.kv("htm", method);
    // RFC 9449 §4.2: htu is the target URI without query and fragment.
    c.kv("htu", url.substr(0, url.find_first_of("?#")));
    c.kv("iat", iat ? *iat : static_cast<long long>(std::time(nullptr)));
    if (access_token) c.kv("ath", crypto::b64url_encode(crypto::sha256(*access_token)));
    return crypto::jws_compact(key, h.done(), c.done());
}

std::string make_service_signature(const crypto::P256PrivateKey& key, std::string_view body) {
    rapidjson::Document doc;
    try {
        doc = json::parse_strict(body);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("invalid body: ") + e.what());
    }
    auto canonical = json::jcs(doc);
    if (!canonical)
        throw std::runtime_error(
            "the body has no exact JCS form (a non-integer or out-of-range "
            "number?); the server would reject it");
    std::string hash_b64 = crypto::b64url_encode(crypto::blake3_256(*canonical));
    // kid is b64url, so the header needs no escaping.
    std::string header =
        R"({"alg":"ES256","kid":")" + crypto::jwk_thumbprint(key.x(), key.y()) + R"("})";
    return crypto::jws_detached(key, header, hash_b64);
}

}  // namespace pouch::clientfmt
