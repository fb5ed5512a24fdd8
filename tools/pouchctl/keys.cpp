// keys.cpp -- `pouchctl keygen` and `pouchctl jwk`: make the CLI's P-256 sign key and show
// its public JWK and RFC 7638 thumbprint. Relies on client_key.h and common/crypto/es256.h.
#include <cstdio>
#include <exception>

#include "common/crypto/es256.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {

int cmd_keygen(const Args& args) {
    auto a = parse_args("keygen", args, {"out"});
    if (!a) return 2;
    auto out = a->get("out");
    if (!out || out->empty() || !a->positional.empty()) {
        std::fprintf(stderr, "usage: pouchctl keygen --out FILE\n");
        return 2;
    }
    try {
        SignKey key = SignKey::generate();
        std::string err;
        if (!key.save(*out, err)) {
            std::fprintf(stderr, "pouchctl keygen: %s\n", err.c_str());
            return 1;
        }
        std::printf("%s\n", key.public_jwk_json().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl keygen: %s\n", e.what());
        return 1;
    }
}

int cmd_jwk(const Args& args) {
    auto a = parse_args("jwk", args, {"key"});
    if (!a) return 2;
    auto path = a->get("key");
    if (!path || !a->positional.empty()) {
        std::fprintf(stderr, "usage: pouchctl jwk --key FILE\n");
        return 2;
    }
    try {
        std::string err;
        auto key = SignKey::load(*path, err);
        if (!key) {
            std::fprintf(stderr, "pouchctl jwk: %s\n", err.c_str());
            return 1;
        }
        std::string jkt = pouch::crypto::jwk_thumbprint(key->x(), key->y());
        std::printf("{\"jwk\":%s,\"jkt\":\"%s\"}\n", key->public_jwk_json().c_str(), jkt.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl jwk: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
