// main.cpp -- pouchctl: the operator and developer command. Dispatches to one function per
// subcommand (commands.h); `pouchctl help` lists them.
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/pouchctl/commands.h"

namespace {

struct Command {
    const char* name;
    int (*fn)(const pouchctl::Args&);
    const char* usage;
};

const Command kCommands[] = {
    {"migrate", pouchctl::cmd_migrate, "migrate [--dir DIR]          apply sql/ migrations"},
    {"user", pouchctl::cmd_user, "user role EMAIL ROLE [--reason R]  set a user's role"},
    {"gc", pouchctl::cmd_gc,
     "gc                           release reservations, delete unused blobs"},
    {"blobs", pouchctl::cmd_blobs,
     "blobs migrate [--from DIR] [--limit N] | url ACCOUNT BLOB  S3: copy a directory in, presign"},
    {"pouch", pouchctl::cmd_pouch, "pouch reset-epoch POUCH_ID   start a new event log epoch"},
    {"keygen", pouchctl::cmd_keygen, "keygen --out FILE            new P-256 key, prints JWK"},
    {"jwk", pouchctl::cmd_jwk, "jwk --key FILE               public JWK and thumbprint"},
    {"dpop", pouchctl::cmd_dpop, "dpop --key K --method M --url U [--token T]  DPoP proof"},
    {"sign-body", pouchctl::cmd_sign_body, "sign-body --key K < body    Service-Signature"},
    {"pkce", pouchctl::cmd_pkce, "pkce                         verifier and S256 challenge"},
    {"confirm-code", pouchctl::cmd_confirm_code, "confirm-code REQUEST_ID JKT  login confirm code"},
    {"genesis-statement", pouchctl::cmd_genesis_statement,
     "genesis-statement --member M [--by B] [--label L] [--key K] [--kind K]  signed statement 0"},
    {"identity-statement", pouchctl::cmd_identity_statement,
     "identity-statement --account A --genesis G --key K --sign-out F --enc-out F  identity"},
    {"identity-envelope", pouchctl::cmd_identity_envelope,
     "identity-envelope --account A --member M --to PUB ...  identity keys sealed to a member"},
    {"access-statement", pouchctl::cmd_access_statement,
     "access-statement --pouch P --seq N --kind K ...  signed access list statement"},
    {"key-grant", pouchctl::cmd_key_grant,
     "key-grant --pouch P --account A --key-gen G --to PUB ...  pouch key sealed to an identity"},
};

int usage(FILE* to) {
    std::fprintf(to, "usage: pouchctl COMMAND [ARGS]\n\n");
    for (const auto& c : kCommands) std::fprintf(to, "  %s\n", c.usage);
    return to == stdout ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage(stderr);
    if (!std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help")) return usage(stdout);
    for (const auto& c : kCommands) {
        if (std::strcmp(argv[1], c.name) != 0) continue;
        pouchctl::Args args(argv + 2, argv + argc);
        return c.fn(args);
    }
    std::fprintf(stderr, "pouchctl: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
