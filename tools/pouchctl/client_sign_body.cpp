// client_sign_body.cpp -- `pouchctl sign-body`: the Service-Signature header value for a
// commit body (decisions §1), made by common/clientfmt/proofs.h as `pouch` makes it: strict
// parse, RFC 8785 JCS, BLAKE3-256, then a detached ES256 JWS with kid = the key's jkt.
#include <cstdio>
#include <exception>

#include "common/clientfmt/proofs.h"
#include "tools/pouchctl/client_args.h"
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
        // common/clientfmt/proofs.h uses the server's own strict parser and JCS, so a body
        // this command signs is one the server accepts and hashes identically.
        std::printf("%s\n", pouch::clientfmt::make_service_signature(*key, body).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl sign-body: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
