// client_dpop.cpp -- `pouchctl dpop`: a DPoP proof (RFC 9449 §4.2, decisions §1) for one
// request, signed with the CLI key. JSON is written with RapidJSON so that any method, URL
// or jti given on the command line is escaped correctly.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_jws.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

// RFC 9449 §4.2: htu is the target URI without query and fragment.
std::string strip_query_fragment(const std::string& url) {
    return url.substr(0, url.find_first_of("?#"));
}

bool parse_int64(const std::string& s, long long& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    out = std::strtoll(s.c_str(), &end, 10);
    return errno == 0 && *end == '\0';
}

}  // namespace

int cmd_dpop(const Args& args) {
    auto a = parse_args("dpop", args, {"key", "method", "url", "token", "iat", "jti"});
    if (!a) return 2;
    auto path = a->get("key"), method = a->get("method"), url = a->get("url");
    if (!path || !method || !url || method->empty() || url->empty() || !a->positional.empty()) {
        std::fprintf(stderr,
                     "usage: pouchctl dpop --key K --method M --url U [--token T] [--iat N] "
                     "[--jti J]\n");
        return 2;
    }
    long long iat = static_cast<long long>(std::time(nullptr));
    if (auto s = a->get("iat"); s && !parse_int64(*s, iat)) {
        std::fprintf(stderr, "pouchctl dpop: --iat must be an integer (seconds since 1970)\n");
        return 2;
    }
    if (auto j = a->get("jti"); j && (j->empty() || j->size() > 128)) {
        std::fprintf(stderr, "pouchctl dpop: --jti must have 1..128 characters\n");
        return 2;
    }
    try {
        std::string err;
        auto key = SignKey::load(*path, err);
        if (!key) {
            std::fprintf(stderr, "pouchctl dpop: %s\n", err.c_str());
            return 1;
        }
        rapidjson::StringBuffer hb;
        Writer h(hb);
        h.StartObject();
        put(h, "typ", "dpop+jwt");
        put(h, "alg", "ES256");
        h.Key("jwk");
        h.StartObject();
        put(h, "kty", "EC");
        put(h, "crv", "P-256");
        put(h, "x", key->x());
        put(h, "y", key->y());
        h.EndObject();
        h.EndObject();

        rapidjson::StringBuffer cb;
        Writer c(cb);
        c.StartObject();
        // 16 random bytes: unguessable and unique enough for the server's 10-minute
        // replay window (decisions §1).
        put(c, "jti", a->get("jti").value_or(
                           pouch::crypto::b64url_encode(pouch::crypto::random_bytes(16))));
        put(c, "htm", *method);
        put(c, "htu", strip_query_fragment(*url));
        c.Key("iat");
        c.Int64(iat);
        if (auto token = a->get("token"))
            put(c, "ath", pouch::crypto::b64url_encode(pouch::crypto::sha256(*token)));
        c.EndObject();

        std::printf("%s\n", jws_compact(*key, hb.GetString(), cb.GetString()).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl dpop: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
