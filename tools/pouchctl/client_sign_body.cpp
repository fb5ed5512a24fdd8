// client_sign_body.cpp -- `pouchctl sign-body`: the Service-Signature header value for a
// commit body (decisions §1): strict parse (common/json/parse.h), RFC 8785 JCS
// (common/json/jcs.h), BLAKE3-256, then a detached ES256 JWS with kid = the key's jkt.
#include <cstdio>
#include <exception>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/http/error.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_jws.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {

int cmd_sign_body(const Args& args) {
    auto a = parse_args("sign-body", args, {"key"});
    if (!a) return 2;
    auto path = a->get("key");
    if (!path || !a->positional.empty()) {
        std::fprintf(stderr, "usage: pouchctl sign-body --key K < body.json\n");
        return 2;
    }
    std::string body;
    if (!read_stdin(body)) {
        std::fprintf(stderr, "pouchctl sign-body: cannot read the body from stdin\n");
        return 1;
    }
    try {
        std::string err;
        auto key = SignKey::load(*path, err);
        if (!key) {
            std::fprintf(stderr, "pouchctl sign-body: %s\n", err.c_str());
            return 1;
        }
        // The same parser as the server, so a body this command signs is one the server
        // accepts and hashes identically.
        rapidjson::Document doc = pouch::json::parse_strict(body);
        auto canonical = pouch::json::jcs(doc);
        if (!canonical) {
            std::fprintf(stderr,
                         "pouchctl sign-body: the body has no exact JCS form (a non-integer "
                         "or out-of-range number?); the server would reject it\n");
            return 1;
        }
        std::string hash_b64 = pouch::crypto::b64url_encode(pouch::crypto::blake3_256(*canonical));
        // kid is b64url, so the header needs no escaping.
        std::string header = R"({"alg":"ES256","kid":")" +
                             pouch::crypto::jwk_thumbprint(key->x(), key->y()) + R"("})";
        std::printf("%s\n", jws_detached(*key, header, hash_b64).c_str());
        return 0;
    } catch (const pouch::ApiError& e) {
        std::fprintf(stderr, "pouchctl sign-body: invalid body: %s\n", e.message.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl sign-body: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
