// jws.cpp -- JWS compact parsing (see jws.h). The header goes through json::parse_strict
// (decisions §3), whose Error is turned into "not a JWS" here: callers choose the error.
#include "common/jose/jws.h"

#include "common/crypto/b64url.h"
#include "common/types/error.h"
#include "common/json/parse.h"

namespace pouch::jose {

using namespace crypto;  // the primitives this layer composes

namespace {

struct Parts {
    std::string_view h, p, s;
};

std::optional<Parts> split3(std::string_view compact) {
    size_t d1 = compact.find('.');
    if (d1 == std::string_view::npos) return std::nullopt;
    size_t d2 = compact.find('.', d1 + 1);
    if (d2 == std::string_view::npos) return std::nullopt;
    if (compact.find('.', d2 + 1) != std::string_view::npos) return std::nullopt;
    return Parts{compact.substr(0, d1), compact.substr(d1 + 1, d2 - d1 - 1),
                 compact.substr(d2 + 1)};
}

std::optional<Jws> build(std::string_view h, std::string_view p, std::string_view s) {
    if (h.empty()) return std::nullopt;
    auto header = b64url_decode(h);
    auto payload = b64url_decode(p);
    auto sig = b64url_decode(s);
    if (!header || !payload || !sig) return std::nullopt;
    Jws j;
    try {
        j.header = json::parse_strict(*header);
    } catch (const Error&) {
        return std::nullopt;
    }
    if (!j.header.IsObject()) return std::nullopt;
    j.header_b64 = std::string(h);
    j.payload_b64 = std::string(p);
    j.signature = std::move(*sig);
    j.header_json = std::move(*header);
    j.payload = std::move(*payload);
    j.signing_input = j.header_b64 + "." + j.payload_b64;
    return j;
}

}  // namespace

bool Jws::verify_es256(const P256PublicKey& key) const {
    return key.verify(signing_input, signature);
}

std::optional<Jws> parse_jws(std::string_view compact) {
    auto parts = split3(compact);
    if (!parts) return std::nullopt;
    return build(parts->h, parts->p, parts->s);
}

std::optional<Jws> parse_jws_detached(std::string_view compact, std::string_view payload_b64) {
    auto parts = split3(compact);
    if (!parts || !parts->p.empty()) return std::nullopt;
    return build(parts->h, payload_b64, parts->s);
}

}  // namespace pouch::jose
