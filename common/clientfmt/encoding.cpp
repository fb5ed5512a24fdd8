// encoding.cpp -- the format's shared conventions (encoding.h) on common/json (strict parse,
// JCS) and common/crypto (b64url, P-256 points and thumbprints).
#include "common/clientfmt/encoding.h"

#include <cctype>
#include <ctime>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/p256_private.h"
#include "common/json/jcs.h"
#include "common/json/out.h"
#include "common/json/parse.h"

namespace pouch::clientfmt {

bool is_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (size_t i = 0; i < 36; ++i) {
        char c = s[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash != (c == '-')) return false;
        if (!dash && !std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

std::string lower_uuid(std::string_view uuid) {
    if (!is_uuid(uuid)) throw FormatError("not a UUID: " + std::string(uuid.substr(0, 40)));
    std::string out(uuid);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string id_bytes(std::string_view uuid) {
    return lower_uuid(uuid);
}

bool is_b64url32(std::string_view s) {
    if (s.size() != 43) return false;
    auto raw = crypto::b64url_decode(s);
    return raw && raw->size() == 32;
}

std::string u64be(uint64_t n) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i, n >>= 8) out[static_cast<size_t>(i)] = static_cast<char>(n & 0xff);
    return out;
}

rapidjson::Document parse_object(std::string_view text, bool must_be_canonical) {
    rapidjson::Document doc;
    try {
        doc = json::parse_strict_any(text);
    } catch (const std::exception& e) {
        throw FormatError(std::string("not valid JSON: ") + e.what());
    }
    if (!doc.IsObject()) throw FormatError("not a JSON object");
    if (must_be_canonical) {
        auto c = json::jcs(doc);
        if (!c || *c != text) throw FormatError("not in its canonical (JCS) form");
    }
    return doc;
}

std::string jcs_of(std::string_view json_text) {
    rapidjson::Document doc = parse_object(json_text);
    auto c = json::jcs(doc);
    if (!c) throw FormatError("JCS cannot represent this object");
    return *c;
}

namespace {

const rapidjson::Value* find(const rapidjson::Value& o, const char* name) {
    if (!o.IsObject())
        throw FormatError(std::string("not an object where '") + name + "' was expected");
    auto it = o.FindMember(name);
    return it == o.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

std::string_view get_view(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || !v->IsString()) throw FormatError(std::string("'") + name + "' must be a string");
    return std::string_view(v->GetString(), v->GetStringLength());
}

std::string get_str(const rapidjson::Value& o, const char* name) {
    return std::string(get_view(o, name));
}

std::optional<std::string> get_opt_str(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || v->IsNull()) return std::nullopt;
    if (!v->IsString()) throw FormatError(std::string("'") + name + "' must be a string or null");
    return std::string(v->GetString(), v->GetStringLength());
}

long long get_int(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || !v->IsInt64()) throw FormatError(std::string("'") + name + "' must be an integer");
    return v->GetInt64();
}

std::optional<long long> get_opt_int(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || v->IsNull()) return std::nullopt;
    if (!v->IsInt64()) throw FormatError(std::string("'") + name + "' must be an integer");
    return v->GetInt64();
}

const rapidjson::Value& get_obj(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || !v->IsObject()) throw FormatError(std::string("'") + name + "' must be an object");
    return *v;
}

const rapidjson::Value& get_arr(const rapidjson::Value& o, const char* name) {
    const auto* v = find(o, name);
    if (!v || !v->IsArray()) throw FormatError(std::string("'") + name + "' must be an array");
    return *v;
}

std::string PublicJwk::json() const {
    json::Out o;
    o.kv("kty", "EC").kv("crv", "P-256").kv("x", x).kv("y", y);
    return o.done();
}

std::string PublicJwk::point() const {
    auto p = crypto::p256_point_from_jwk(x, y);
    if (!p) throw FormatError("malformed P-256 public key");
    return *p;
}

std::string PublicJwk::jkt() const {
    return crypto::jwk_thumbprint(x, y);
}

PublicJwk PublicJwk::from_json(const rapidjson::Value& v, const char* what) {
    if (!v.IsObject() || v.MemberCount() != 4)
        throw FormatError(std::string(what) + " must be a JWK of kty, crv, x and y");
    if (get_str(v, "kty") != "EC" || get_str(v, "crv") != "P-256")
        throw FormatError(std::string(what) + " must be an EC P-256 key");
    PublicJwk k{get_str(v, "x"), get_str(v, "y")};
    if (!crypto::p256_on_curve(k.x, k.y))
        throw FormatError(std::string(what) + " is not a point of P-256");
    return k;
}

std::string rfc3339_utc(long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

long long now_unix() {
    return static_cast<long long>(std::time(nullptr));
}

}  // namespace pouch::clientfmt
