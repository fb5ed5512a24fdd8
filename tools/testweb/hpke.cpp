// hpke.cpp -- pouch-testweb hpke: the C++ HPKE (common/crypto/hpke.h) driven line by line for
// the interop suite's round trip against @hpke/core (tests/interop/hpke.mjs). Each stdin line
// is a JSON request, each stdout line its answer (all bytes b64url):
//   {"op":"keygen"}                                  -> {"d","jwk":{kty,crv,x,y}}
//   {"op":"seal","jwk":{..},"info","aad","pt"}       -> {"enc","ct"}
//   {"op":"open","d","info","aad","enc","ct"}        -> {"pt"} or {"error"}
#include <cstdio>
#include <iostream>
#include <string>

#include "clients/cli/errors.h"
#include "common/clientfmt/encoding.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hpke.h"
#include "common/json/out.h"
#include "tools/testweb/web.h"

namespace testweb {

namespace fmt = pouch::clientfmt;
namespace crypto = pouch::crypto;

namespace {

std::string bytes(const rapidjson::Value& o, const char* k) {
    auto b = crypto::b64url_decode(fmt::get_str(o, k));
    if (!b) throw fmt::FormatError(std::string(k) + " is not b64url");
    return *b;
}

std::string answer(const std::string& line) {
    auto req = fmt::parse_object(line);
    std::string op = fmt::get_str(req, "op");
    pouch::json::Out o;
    if (op == "keygen") {
        auto k = crypto::P256PrivateKey::generate();
        o.kv("d", crypto::b64url_encode(k.scalar())).key("jwk").raw(k.public_jwk_json());
    } else if (op == "seal") {
        fmt::PublicJwk pk = fmt::PublicJwk::from_json(fmt::get_obj(req, "jwk"), "jwk");
        crypto::hpke::Sealed s =
            crypto::hpke::seal(pk.point(), bytes(req, "info"), bytes(req, "aad"), bytes(req, "pt"));
        o.kv("enc", crypto::b64url_encode(s.enc)).kv("ct", crypto::b64url_encode(s.ct));
    } else if (op == "open") {
        auto k = crypto::P256PrivateKey::from_scalar(bytes(req, "d"));
        if (!k) throw fmt::FormatError("d is not a P-256 scalar");
        auto pt = crypto::hpke::open(*k, bytes(req, "enc"), bytes(req, "info"), bytes(req, "aad"),
                                     bytes(req, "ct"));
        if (pt)
            o.kv("pt", crypto::b64url_encode(*pt));
        else
            o.kv("error", "does not open");
    } else {
        throw fmt::FormatError("unknown op " + op);
    }
    return o.done();
}

}  // namespace

int cmd_hpke(const Args&) {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        try {
            std::printf("%s\n", answer(line).c_str());
        } catch (const std::exception& e) {
            pouch::json::Out o;
            o.kv("error", e.what());
            std::printf("%s\n", o.done().c_str());
        }
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace testweb
