// dpop.cpp -- DPoP proof checks (see dpop.h) on parse_jws, P256PublicKey and
// json::parse_strict for the claims. Every failure is one Error (Fault::unauthenticated, invalid_dpop_proof), so clients cannot
// tell checks apart by status, only by the human message.
#include "common/jose/dpop.h"

#include <cctype>

#include "common/crypto/b64url.h"
#include "common/crypto/ct.h"
#include "common/crypto/hash.h"
#include "common/crypto/key_cache.h"
#include "common/jose/jws.h"
#include "common/types/error.h"
#include "common/json/parse.h"

namespace pouch::jose {

using namespace crypto;  // the primitives this layer composes

namespace {

// A proof is a few hundred bytes; a cap keeps a hostile header from costing a big parse.
constexpr size_t kMaxProofLen = 8192;
constexpr size_t kMaxJtiChars = 128;
constexpr long long kIatPast = 120;
constexpr long long kIatFuture = 60;

[[noreturn]] void fail(std::string message) {
    // common/auth/dpop_check.cpp adds the WWW-Authenticate challenge at the edge.
    throw Error(Code::invalid_dpop_proof, "DPoP proof: " + std::move(message));
}

std::string_view sv(const rapidjson::Value& v) {
    return std::string_view(v.GetString(), v.GetStringLength());
}

// The string member `name` of object o, or nullopt when absent; present but not a string
// fails.
std::optional<std::string_view> opt_string(const rapidjson::Value& o, const char* name,
                                           const char* what) {
    auto it = o.FindMember(name);
    if (it == o.MemberEnd()) return std::nullopt;
    if (!it->value.IsString()) fail(std::string(what) + " " + name + " is not a string");
    return sv(it->value);
}

std::string_view req_string(const rapidjson::Value& o, const char* name, const char* what) {
    auto v = opt_string(o, name, what);
    if (!v) fail(std::string(what) + " " + name + " is missing");
    return *v;
}

// The embedded key: EC P-256 public members only. kid/use/alg are harmless public
// metadata that some libraries add; anything else (d, p, q, x5c, ...) is refused.
P256PublicKey key_from_jwk(const rapidjson::Value& jwk) {
    if (!jwk.IsObject()) fail("header jwk is not an object");
    for (const auto& m : jwk.GetObject()) {
        std::string_view n = sv(m.name);
        if (n == "kty" || n == "crv" || n == "x" || n == "y") continue;
        if (n == "kid" && m.value.IsString()) continue;
        if (n == "use" && m.value.IsString() && sv(m.value) == "sig") continue;
        if (n == "alg" && m.value.IsString() && sv(m.value) == "ES256") continue;
        if (n == "d") fail("jwk holds a private key");
        fail("jwk member " + std::string(n) + " is not allowed");
    }
    if (req_string(jwk, "kty", "jwk") != "EC") fail("jwk kty is not EC");
    if (req_string(jwk, "crv", "jwk") != "P-256") fail("jwk crv is not P-256");
    // Parsed once per key (key_cache.h): found by the thumbprint of these very coordinates.
    auto key = p256_key_cache().get(req_string(jwk, "x", "jwk"), req_string(jwk, "y", "jwk"));
    if (!key) fail("jwk is not a valid P-256 public key");
    return *key;
}

size_t utf8_chars(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

bool is_hex(char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::optional<std::string> normalize_htu(std::string_view uri) {
    size_t colon = uri.find("://");
    if (colon == std::string_view::npos) return std::nullopt;
    std::string scheme = lower(uri.substr(0, colon));
    if (scheme != "http" && scheme != "https") return std::nullopt;
    std::string_view rest = uri.substr(colon + 3);
    // Query and fragment are not compared (RFC 9449 §4.3 step 9).
    rest = rest.substr(0, rest.find_first_of("?#"));
    size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? "/" : rest.substr(slash);
    // Userinfo has no business in an htu; refusing it avoids "a@b" vs "b" ambiguity.
    if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;

    std::string_view host = authority, port;
    size_t pc = authority.rfind(':');
    size_t bracket = authority.rfind(']');
    if (pc != std::string_view::npos && (bracket == std::string_view::npos || pc > bracket)) {
        host = authority.substr(0, pc);
        port = authority.substr(pc + 1);
    }
    if (host.empty()) return std::nullopt;
    for (char c : port)
        if (c < '0' || c > '9') return std::nullopt;
    bool default_port =
        port.empty() || (scheme == "http" && port == "80") || (scheme == "https" && port == "443");

    std::string out = scheme + "://" + lower(host);
    if (!default_port) out += ":" + std::string(port);
    for (size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '%') {
            if (i + 2 >= path.size() || !is_hex(path[i + 1]) || !is_hex(path[i + 2]))
                return std::nullopt;
            out += '%';
            out += static_cast<char>(std::toupper(static_cast<unsigned char>(path[i + 1])));
            out += static_cast<char>(std::toupper(static_cast<unsigned char>(path[i + 2])));
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

DpopProof verify_dpop(const DpopInput& in) {
    if (in.proof.empty()) fail("missing");
    if (in.proof.size() > kMaxProofLen) fail("too long");
    auto jws = parse_jws(in.proof);
    if (!jws) fail("not a well-formed JWS");
    const auto& h = jws->header;

    if (req_string(h, "typ", "header") != "dpop+jwt") fail("typ is not dpop+jwt");
    if (req_string(h, "alg", "header") != "ES256") fail("alg is not ES256");
    // We implement no JWS extension, so crit must be refused (RFC 7515 §4.1.11); b64
    // would change what is signed (RFC 7797).
    if (h.HasMember("crit") || h.HasMember("b64")) fail("crit/b64 header is not supported");
    auto jwk_it = h.FindMember("jwk");
    if (jwk_it == h.MemberEnd()) fail("header jwk is missing");
    P256PublicKey key = key_from_jwk(jwk_it->value);
    if (!jws->verify_es256(key)) fail("signature does not verify with the embedded jwk");

    rapidjson::Document claims;
    try {
        claims = json::parse_strict(jws->payload);
    } catch (const Error&) {
        fail("claims are not a strict JSON object");
    }

    std::string_view jti = req_string(claims, "jti", "claim");
    size_t jti_len = utf8_chars(jti);
    if (jti_len < 1 || jti_len > kMaxJtiChars) fail("jti must be 1..128 characters");

    if (req_string(claims, "htm", "claim") != in.method) fail("htm does not match the method");

    auto htu = normalize_htu(req_string(claims, "htu", "claim"));
    std::string_view base = in.public_url;
    while (!base.empty() && base.back() == '/') base.remove_suffix(1);
    std::string_view path = in.path;
    if (path.empty() || path.front() != '/') fail("request path is not absolute");
    auto expected = normalize_htu(std::string(base) + std::string(path));
    if (!htu || !expected || *htu != *expected) fail("htu does not match the request URL");

    auto iat_it = claims.FindMember("iat");
    if (iat_it == claims.MemberEnd()) fail("claim iat is missing");
    if (!iat_it->value.IsInt64()) fail("claim iat is not an integer");
    long long iat = iat_it->value.GetInt64();
    if (iat < in.now - kIatPast) fail("iat is too old");
    if (iat > in.now + kIatFuture) fail("iat is in the future");

    auto ath = opt_string(claims, "ath", "claim");
    if (in.access_token) {
        if (!ath) fail("claim ath is missing");
        if (!ct_equal(*ath, b64url_encode(sha256(*in.access_token))))
            fail("ath does not match the access token");
    } else if (ath) {
        fail("ath given without an access token");
    }

    return DpopProof{key.thumbprint(), std::string(jti), iat, std::move(key)};
}

}  // namespace pouch::jose
