// client_login.cpp -- `pouchctl pkce` and `pouchctl confirm-code`: the CLI side of the login
// flow (decisions §6), on common/crypto/pkce.h and confirm_code.h so that the CLI and the
// server compute byte-identical values.
#include <cstdio>
#include <exception>

#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/pkce.h"
#include "common/crypto/random.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {

int cmd_pkce(const Args& args) {
    auto a = parse_args("pkce", args, {"verifier"});
    if (!a) return 2;
    if (!a->positional.empty()) {
        std::fprintf(stderr, "usage: pouchctl pkce [--verifier V]\n");
        return 2;
    }
    try {
        // 32 random bytes give the 43-character verifier RFC 7636 §4.1 recommends.
        std::string verifier =
            a->get("verifier").value_or(pouch::crypto::b64url_encode(pouch::crypto::random_bytes(32)));
        if (!pouch::crypto::valid_code_verifier(verifier)) {
            std::fprintf(stderr,
                         "pouchctl pkce: a verifier has 43..128 characters of [A-Za-z0-9-._~]\n");
            return 2;
        }
        // Both values are in the unreserved set: no JSON escaping needed.
        std::printf("{\"verifier\":\"%s\",\"challenge\":\"%s\"}\n", verifier.c_str(),
                    pouch::crypto::pkce_s256(verifier).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl pkce: %s\n", e.what());
        return 1;
    }
}

int cmd_confirm_code(const Args& args) {
    if (args.size() != 2 || args[0].empty() || args[1].empty()) {
        std::fprintf(stderr, "usage: pouchctl confirm-code REQUEST_ID JKT\n");
        return 2;
    }
    std::printf("%s\n", pouch::crypto::confirm_code(args[0], args[1]).c_str());
    return 0;
}

}  // namespace pouchctl
